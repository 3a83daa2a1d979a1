#include "e2e/tls_material.h"

#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <functional>
#include <memory>
#include <stdexcept>

namespace e2e {
namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct X509Free {
  void operator()(X509* p) const { X509_free(p); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using X509Ptr = std::unique_ptr<X509, X509Free>;

[[noreturn]] void Fail(const std::string& what) {
  char buf[256] = "no OpenSSL error queued";
  if (unsigned long e = ERR_get_error(); e != 0) ERR_error_string_n(e, buf, sizeof buf);
  throw std::runtime_error("TLS material: " + what + ": " + buf);
}

void Check(int rc, const std::string& what) {
  if (rc != 1) Fail(what);
}

PkeyPtr NewKey() {
  // P-256 keys are made in microseconds; RSA keys would cost the suite time.
  PkeyPtr key(EVP_EC_gen("P-256"));
  if (!key) Fail("EC key generation");
  return key;
}

void AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) Fail(std::string("extension ") + OBJ_nid2sn(nid) + "=" + value);
  int rc = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  Check(rc, "X509_add_ext");
}

// An unsigned v3 certificate for `key`, named `commonName`, issued by
// `issuer` (itself when null).
X509Ptr NewCertificate(EVP_PKEY* key, const char* commonName, X509* issuer) {
  X509Ptr cert(X509_new());
  if (!cert) Fail("X509_new");
  Check(X509_set_version(cert.get(), 2), "X509_set_version");
  // A random serial: two runs never present the receiver's client (OpenSSL's
  // cache, a browser) with one issuer + serial for two different certificates.
  unsigned char serialBytes[16];
  Check(RAND_bytes(serialBytes, sizeof serialBytes), "RAND_bytes");
  serialBytes[0] &= 0x7f;  // positive
  BIGNUM* serial = BN_bin2bn(serialBytes, sizeof serialBytes, nullptr);
  if (serial == nullptr || BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert.get())) == nullptr) {
    BN_free(serial);
    Fail("serial number");
  }
  BN_free(serial);
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), 2 * 24 * 3600) == nullptr)
    Fail("validity");
  Check(X509_set_pubkey(cert.get(), key), "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(cert.get());
  Check(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("livechat e2e"),
                                   -1, -1, 0),
        "subject O");
  Check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(commonName), -1,
                                   -1, 0),
        "subject CN");
  X509* signer = issuer != nullptr ? issuer : cert.get();
  Check(X509_set_issuer_name(cert.get(), X509_get_subject_name(signer)), "X509_set_issuer_name");
  return cert;
}

void Sign(X509* cert, EVP_PKEY* key) {
  if (X509_sign(cert, key, EVP_sha256()) <= 0) Fail("X509_sign");
}

void WritePem(const std::string& path, const std::function<int(FILE*)>& write) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) throw std::runtime_error("TLS material: cannot write " + path);
  int rc = write(f);
  if (std::fclose(f) != 0) rc = 0;
  if (rc != 1) Fail("writing " + path);
}

}  // namespace

TlsMaterial MakeTlsMaterial(const std::string& dir) {
  ERR_clear_error();
  TlsMaterial out{dir + "/ca.pem", dir + "/server.pem", dir + "/server.key"};

  PkeyPtr caKey = NewKey();
  X509Ptr ca = NewCertificate(caKey.get(), "livechat e2e throwaway CA", nullptr);
  AddExtension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE,pathlen:0");
  AddExtension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  AddExtension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  Sign(ca.get(), caKey.get());

  PkeyPtr serverKey = NewKey();
  X509Ptr server = NewCertificate(serverKey.get(), "localhost", ca.get());
  AddExtension(server.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  AddExtension(server.get(), ca.get(), NID_key_usage, "critical,digitalSignature,keyEncipherment");
  AddExtension(server.get(), ca.get(), NID_ext_key_usage, "serverAuth");
  AddExtension(server.get(), ca.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
  AddExtension(server.get(), ca.get(), NID_subject_key_identifier, "hash");
  AddExtension(server.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
  Sign(server.get(), caKey.get());

  WritePem(out.caCertPath, [&](FILE* f) { return PEM_write_X509(f, ca.get()); });
  WritePem(out.certPath, [&](FILE* f) { return PEM_write_X509(f, server.get()); });
  WritePem(out.keyPath,
           [&](FILE* f) { return PEM_write_PrivateKey(f, serverKey.get(), nullptr, nullptr, 0, nullptr, nullptr); });
  return out;
}

std::string OpenSslHmacSha256Hex(const std::string& key, const std::string& message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  const auto* data = reinterpret_cast<const unsigned char*>(message.data());
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), data, message.size(), mac, &len) == nullptr)
    Fail("HMAC");
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[mac[i] >> 4]);
    out.push_back(kHex[mac[i] & 0xf]);
  }
  return out;
}

}  // namespace e2e
