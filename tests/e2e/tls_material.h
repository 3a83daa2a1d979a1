// Throwaway TLS material for the end-to-end suite: a CA made on the spot and a
// server certificate it signs, for localhost, 127.0.0.1 and ::1. Built with
// the OpenSSL library (always present, since cpp-httplib links it) rather
// than the openssl command, which a minimal build image may lack.
#pragma once

#include <string>

namespace e2e {

struct TlsMaterial {
  std::string caCertPath;  // PEM: the CA certificate (what --webhook-ca-file trusts)
  std::string certPath;    // PEM: the server certificate
  std::string keyPath;     // PEM: the server's private key
};

// Writes ca.pem, server.pem and server.key into `dir`. Valid from an hour ago
// for two days. Throws std::runtime_error with OpenSSL's reason on failure.
TlsMaterial MakeTlsMaterial(const std::string& dir);

// Lowercase hex HMAC-SHA256 computed with OpenSSL: an implementation
// independent of the libsodium one the service signs with.
std::string OpenSslHmacSha256Hex(const std::string& key, const std::string& message);

}  // namespace e2e
