// PrivacyService: the data lifecycle of spec rules 7-9. Platform requests (app
// uninstalled, customer redact, customer data request, shop redact) with
// their audit trail, channel integrations, the install state, and the admin
// inbox's contact delete.
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <array>
#include <initializer_list>

#include "core/catalog_format.h"
#include "livechat/shopping.h"
#include "core/service_internal.h"
#include "livechat/base/ascii.h"
#include "livechat/chat_service.h"
#include "livechat/json_codec.h"

namespace livechat {

using namespace internal;

namespace {

// What one request changed, reported in the audit trail as {"name": n, ...}
// in a fixed order; only the counts a topic can touch are listed.
class Changes {
 public:
  void Add(const char* name, std::int64_t n = 1) {
    for (auto& [k, v] : counts_)
      if (k == name) {
        v += n;
        return;
      }
    counts_.emplace_back(name, n);
  }
  void Declare(std::initializer_list<const char*> names) {
    for (const char* n : names) Add(n, 0);
  }
  std::string Json() const {
    JsonObject o;
    for (const auto& [k, v] : counts_) o.Int(JsonKey(k), v);
    return o.Done();
  }

 private:
  std::vector<std::pair<const char*, std::int64_t>> counts_;
};

// The fields spec rule 8 calls personal: cleared by a redact, along with the
// channel identity. Kept: id, type, channels, senderSeq, the timestamps.
void ClearPersonalFields(Customer& c) {
  c.shopifyId.reset();
  c.name.reset();
  c.firstName.reset();
  c.lastName.reset();
  c.email.reset();
  c.phone.reset();
  c.tags.clear();
  c.note.reset();
  c.customAttributes.clear();
  c.address1.reset();
  c.address2.reset();
  c.city.reset();
  c.zip.reset();
  c.country.reset();
  c.countryCode.reset();
  c.ordersCount.reset();
  c.totalSpent.reset();
  c.ipAddress.reset();
  c.ipLocation.reset();
  c.browser.reset();
  c.browserVersion.reset();
  c.os.reset();
  c.deviceType.reset();
  c.channelRecipient.reset();
}

constexpr const char* kRedactedSender = "Redacted";
constexpr const char* kRedactedExport = R"({"redacted":true})";

// Rewrites the stored events of a redacted contact that still carry its
// personal fields to what the event says of the contact as a read shows it
// after the redaction (same id, type and time), whatever their deliveries'
// state: the dispatcher builds and signs the body from the stored event at
// send time, so a delivery still pending or retrying sends the redacted form,
// and a redelivery of one already delivered cannot send the fields again.
// Only customer.created carries such fields; message and conversation events
// hold ids, the channel and the message text, which rule 8 keeps as history.
Status RedactEvents(StoreWriter& w, const std::string& shopId, const Customer& redacted, Changes& changes) {
  const std::string data = CustomerCreatedData(redacted);
  LC_ASSIGN_OR_RETURN(auto events, w.ListEventsOfCustomer(shopId, redacted.id));
  for (const Event& e : events) {
    if (e.type != "customer.created" || e.dataJson == data) continue;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateEventData(shopId, e.id, data));
    if (ok) changes.Add("webhookEvents");
  }
  return Status::Ok();
}

// Redacts one contact inside an open transaction: personal fields cleared,
// every conversation (legacy ones too) labelled and stripped of the contact's
// name and email, the contact's messages' sender name replaced, browsed pages
// and storefront sessions ended and emptied, its loyalty account removed, its
// stored webhook events rewritten (RedactEvents). Messages, notes and
// attributes stay: they are the history rule 8 keeps. `detach`: the contact
// is being deleted, so conversations and sessions stop naming it. A contact
// already redacted is left alone unless detaching.
Status RedactContact(StoreWriter& w, const std::string& shopId, Customer c, Millis now, bool detach,
                     Changes& changes) {
  if (c.redactedAt && !detach) return Status::Ok();
  if (c.email && !c.email->empty()) {
    LC_ASSIGN_OR_RETURN(bool gone,
                        w.DeleteCatalogItem(shopId, catalog_kind::kLoyaltyAccount, LoyaltyAccountId(*c.email)));
    if (gone) changes.Add("loyaltyAccounts");
  }
  LC_ASSIGN_OR_RETURN(auto conversations, w.ListConversationsOfCustomer(shopId, c.id));
  for (Conversation& conv : conversations) {
    const bool wasRedacted = conv.redactedAt.has_value();
    conv.customerName.reset();
    conv.customerEmail.reset();
    if (!conv.redactedAt) conv.redactedAt = now;
    if (detach) conv.customerUuid.reset();
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(conv));
    (void)ok;
    if (!wasRedacted) changes.Add("conversations");
    MessageQuery q;
    q.shopId = shopId;
    q.conversationId = conv.id;
    q.includeDeleted = true;
    q.limit = 500;
    for (;;) {
      LC_ASSIGN_OR_RETURN(auto page, w.ListMessages(q));
      for (Message& m : page) {
        if (m.senderType != "customer" || m.senderName == kRedactedSender) continue;
        m.senderName = kRedactedSender;
        LC_ASSIGN_OR_RETURN(bool updated, w.UpdateMessage(m));
        (void)updated;
        changes.Add("messages");
      }
      if (static_cast<int>(page.size()) < q.limit) break;
      q.afterSeq = page.back().seq;
    }
    LC_ASSIGN_OR_RETURN(std::int64_t pages, w.DeleteBrowsedPages(shopId, conv.id));
    changes.Add("browsedPages", pages);
    // A summary made before the redaction quotes the customer (or, from an
    // LLM, may name them): it is replaced by the redacted one a resolve
    // would make now, from the count alone.
    LC_ASSIGN_OR_RETURN(auto summary, w.GetSummary(shopId, conv.id));
    if (summary && !wasRedacted) {
      LC_ASSIGN_OR_RETURN(Summary redacted, RedactedSummary(w, conv, now));
      LC_RETURN_IF_ERROR(w.PutSummary(shopId, redacted));
      changes.Add("summaries");
    }
  }
  LC_ASSIGN_OR_RETURN(auto sessions, w.ListVisitorSessionsOfCustomer(shopId, c.id));
  for (VisitorSession& s : sessions) {
    const bool wasLive = !s.endedAt;
    if (!s.endedAt) s.endedAt = now;
    s.stateJson = "{}";  // identity given before the contact, pre-chat answers, page views
    if (detach) s.customerId.reset();
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateVisitorSession(s));
    (void)ok;
    if (wasLive) changes.Add("visitorSessions");
  }
  if (!c.redactedAt) {
    ClearPersonalFields(c);
    c.redactedAt = now;
    c.updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateCustomer(c));
    (void)ok;
    changes.Add("contacts");
  }
  return RedactEvents(w, shopId, c, changes);
}

bool Given(const std::optional<std::string>& v) { return v && !v->empty(); }

// The request's phone in PhoneKey form; empty when it has none, or none that
// is a phone number.
std::string RequestPhoneKey(const PlatformRequestInput& in) {
  return in.customerPhone ? PhoneKey(*in.customerPhone) : std::string();
}

// A customer request must name someone. A phone that is no number names no
// one; it is refused only when it is all the request has: the platform sends
// the phone as the shop typed it, and a redact must still reach the contact
// its id or email names.
Status CheckCustomerNamed(const PlatformRequestInput& in) {
  if (Given(in.customerId) || Given(in.customerEmail)) return Status::Ok();
  if (!Given(in.customerPhone)) return Invalid("customer.id, customer.email or customer.phone is required");
  if (RequestPhoneKey(in).empty())
    return Invalid("customer.phone is not a phone number: 7 to 15 digits, optionally with a leading + and spaces, "
                   "- ( ) . between them; or send customer.id or customer.email");
  return Status::Ok();
}

// The store's contacts a platform request names, by every identifier it
// carries: platform customer id (shopifyId), every contact with the email,
// every contact with the phone (PhoneKey); each contact once.
Result<std::vector<Customer>> MatchContacts(StoreReader& r, const std::string& shopId, const PlatformRequestInput& in) {
  std::vector<Customer> out;
  auto addUnique = [&](Customer c) {
    for (const auto& o : out)
      if (o.id == c.id) return;
    out.push_back(std::move(c));
  };
  if (in.customerId && !in.customerId->empty()) {
    LC_ASSIGN_OR_RETURN(auto byId, r.FindCustomersByShopifyId(shopId, *in.customerId));
    for (auto& c : byId) addUnique(std::move(c));
  }
  if (in.customerEmail && !in.customerEmail->empty()) {
    LC_ASSIGN_OR_RETURN(auto byEmail, r.ListCustomersByEmail(shopId, *in.customerEmail));
    for (auto& c : byEmail) addUnique(std::move(c));
  }
  if (const std::string phone = RequestPhoneKey(in); !phone.empty()) {
    LC_ASSIGN_OR_RETURN(auto byPhone, r.ListCustomersByPhone(shopId, phone));
    for (auto& c : byPhone) addUnique(std::move(c));
  }
  return out;
}

// The phone a stored data request named (its customerJson), in PhoneKey form.
std::string StoredPhoneKey(const std::string& customerJson) {
  rapidjson::Document doc;
  doc.Parse(customerJson.c_str(), customerJson.size());
  if (doc.HasParseError() || !doc.IsObject()) return "";
  auto it = doc.FindMember("phone");
  if (it == doc.MemberEnd() || !it->value.IsString()) return "";
  return PhoneKey(std::string_view(it->value.GetString(), it->value.GetStringLength()));
}

// Empties the stored exports of data requests about these contacts (their
// export names one of them), this email or this phone: what is left says
// only that it was redacted. Returns how many.
Result<std::int64_t> RedactDataRequests(StoreWriter& w, const std::string& shopId, const std::vector<Customer>& contacts,
                                        const PlatformRequestInput& in) {
  const std::string email = in.customerEmail ? AsciiLower(*in.customerEmail) : std::string();
  const std::string phone = RequestPhoneKey(in);
  LC_ASSIGN_OR_RETURN(auto requests, w.ListDataRequests(shopId));
  std::int64_t n = 0;
  for (DataRequest& d : requests) {
    bool about = !email.empty() && AsciiLower(d.customerJson).find(email) != std::string::npos;
    about = about || (!phone.empty() && StoredPhoneKey(d.customerJson) == phone);
    for (const auto& c : contacts) about = about || d.exportJson.find("\"" + c.id + "\"") != std::string::npos;
    if (!about || d.exportJson == kRedactedExport) continue;
    d.customerJson = "{}";
    d.exportJson = kRedactedExport;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateDataRequest(d));
    if (ok) ++n;
  }
  return n;
}

Result<std::optional<CatalogItem>> FindNamedOrder(StoreReader& r, const std::string& shopId, const std::string& name);

// Whether applying a platform request now would change anything (see the
// replay rule in ApplyPlatformRequest).
Result<bool> WorkLeft(StoreReader& r, const std::string& shopId, const PlatformRequestInput& in, const Shop& shop) {
  if (in.topic == platform_topic::kAppUninstalled) return shop.installed;
  if (in.topic == platform_topic::kCustomersDataRequest) return false;  // its id names one request
  if (in.topic == platform_topic::kShopRedact) {
    if (shop.installed) return true;  // answered "refused", never a replay that purges
    LC_ASSIGN_OR_RETURN(auto members, r.ListMembers(shopId));
    return !members.empty();
  }
  LC_ASSIGN_OR_RETURN(auto contacts, MatchContacts(r, shopId, in));
  for (const auto& c : contacts)
    if (!c.redactedAt) return true;
  for (const auto& name : in.orders) {
    LC_ASSIGN_OR_RETURN(auto order, FindNamedOrder(r, shopId, name));
    if (order) return true;
  }
  return false;
}

// An order named by the platform: its catalog id, else its order number.
Result<std::optional<CatalogItem>> FindNamedOrder(StoreReader& r, const std::string& shopId, const std::string& name) {
  LC_ASSIGN_OR_RETURN(auto byId, r.GetCatalogItem(shopId, catalog_kind::kOrder, name));
  if (byId) return byId;
  const std::string key = OrderKey(name);
  if (key.empty()) return std::optional<CatalogItem>();
  return r.FindCatalogItemByKey(shopId, catalog_kind::kOrder, key);
}

// Everything held on the matched contacts, as one JSON document.
Result<std::string> AssembleExport(StoreReader& r, const std::string& shopId, const std::vector<Customer>& contacts,
                                   const PlatformRequestInput& in, Millis now) {
  std::string contactsJson = "[";
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const Customer& c = contacts[i];
    std::string conversationsJson = "[";
    LC_ASSIGN_OR_RETURN(auto conversations, r.ListConversationsOfCustomer(shopId, c.id));
    for (std::size_t k = 0; k < conversations.size(); ++k) {
      const Conversation& conv = conversations[k];
      std::string messages = "[";
      MessageQuery q;
      q.shopId = shopId;
      q.conversationId = conv.id;
      q.limit = 500;
      for (;;) {
        LC_ASSIGN_OR_RETURN(auto page, r.ListMessages(q));
        for (const Message& m : page) {
          if (messages.size() > 1) messages += ',';
          messages += ToJson(m, JsonView::kDetail);
        }
        if (static_cast<int>(page.size()) < q.limit) break;
        q.afterSeq = page.back().seq;
      }
      messages += ']';
      LC_ASSIGN_OR_RETURN(auto notes, r.ListNotes(shopId, conv.id));
      LC_ASSIGN_OR_RETURN(auto attributes, r.ListAttributes(shopId, conv.id));
      LC_ASSIGN_OR_RETURN(auto pages, r.ListBrowsedPages(shopId, conv.id, 0, 1'000'000));
      std::string notesJson = "[", attributesJson = "[", pagesJson = "[";
      for (const auto& n : notes) notesJson += (notesJson.size() > 1 ? "," : "") + ToJson(n);
      for (const auto& a : attributes) attributesJson += (attributesJson.size() > 1 ? "," : "") + ToJson(a);
      for (const auto& p : pages) pagesJson += (pagesJson.size() > 1 ? "," : "") + ToJson(p);
      LC_ASSIGN_OR_RETURN(auto summary, r.GetSummary(shopId, conv.id));
      if (k) conversationsJson += ',';
      conversationsJson += JsonObject()
                               .Raw("conversation", ToJson(conv, JsonView::kDetail))
                               .Raw("messages", messages)
                               .Raw("notes", notesJson + "]")
                               .Raw("attributes", attributesJson + "]")
                               .Raw("browsedPages", pagesJson + "]")
                               .Raw("summary", summary ? ToJson(*summary) : "null")
                               .Done();
    }
    conversationsJson += ']';
    if (i) contactsJson += ',';
    contactsJson += JsonObject().Raw("profile", ToJson(c)).Raw("conversations", conversationsJson).Done();
  }
  contactsJson += ']';
  std::string ordersJson = "[";
  std::vector<std::string> notHeld;
  for (const auto& name : in.orders) {
    LC_ASSIGN_OR_RETURN(auto order, FindNamedOrder(r, shopId, name));
    if (!order) {
      notHeld.push_back(name);
      continue;
    }
    if (ordersJson.size() > 1) ordersJson += ',';
    ordersJson += order->dataJson;
  }
  ordersJson += ']';
  return JsonObject()
      .Str("dataRequestId", in.dataRequestId)
      .Str("storeId", shopId)
      .Str("generatedAt", FormatIso8601(now))
      .Raw("contacts", contactsJson)
      .Raw("orders", ordersJson)
      .Strings("ordersNotHeld", notHeld)
      .Done();
}

std::string CustomerRefJson(const PlatformRequestInput& in) {
  return JsonObject()
      .Str("id", in.customerId)
      .Str("email", in.customerEmail)
      .Str("phone", in.customerPhone)
      .Done();
}

bool IsTopic(std::string_view t) {
  return t == platform_topic::kAppUninstalled || t == platform_topic::kCustomersRedact ||
         t == platform_topic::kCustomersDataRequest || t == platform_topic::kShopRedact;
}

}  // namespace

Result<PlatformRequest> PrivacyService::ApplyPlatformRequest(const Principal& p, const PlatformRequestInput& in) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  if (!IsTopic(in.topic))
    return Invalid("topic must be app_uninstalled, customers_redact, customers_data_request or shop_redact");
  if (in.topic == platform_topic::kCustomersRedact || in.topic == platform_topic::kCustomersDataRequest)
    LC_RETURN_IF_ERROR(CheckCustomerNamed(in));
  if (in.topic == platform_topic::kCustomersDataRequest && (!in.dataRequestId || in.dataRequestId->empty()))
    return Invalid("data_request.id is required");
  const Millis now = ctx_.clock->NowMillis();

  PlatformRequest rec;
  rec.id = "preq_" + ctx_.random->Hex(8);
  rec.shopId = p.shopId;
  rec.topic = in.topic;
  rec.deliveryId = in.deliveryId;
  rec.receivedAt = now;
  // The same request: a data request by its id (the platform's own key for
  // it); any other by the platform's delivery id when sent, else by its body.
  if (in.topic == platform_topic::kCustomersDataRequest) {
    rec.requestKey = in.topic + ":data_request:" + *in.dataRequestId;
  } else if (in.deliveryId && !in.deliveryId->empty()) {
    rec.requestKey = in.topic + ":delivery:" + *in.deliveryId;
  } else {
    rec.requestKey = in.topic + ":body:" + in.bodyDigest;
  }

  LC_ASSIGN_OR_RETURN(PlatformRequest done, WriteValue<PlatformRequest>(ctx_.store(), [&](StoreWriter& w) -> Result<PlatformRequest> {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    // The same request again is a replay only while applying it would change
    // nothing: the delivery id is not covered by the signature, and a body
    // can recur for real (an uninstall after a reinstall, a redact for a
    // customer who came back), so a key seen before never skips real work.
    LC_ASSIGN_OR_RETURN(auto earlier, w.FindPlatformRequest(p.shopId, rec.requestKey));
    if (earlier) {
      LC_ASSIGN_OR_RETURN(bool pending, WorkLeft(w, p.shopId, in, *shop));
      if (!pending) {
        rec.outcome = "replay";
        rec.message = "same request as " + earlier->id + ": nothing left to change";
        LC_RETURN_IF_ERROR(w.InsertPlatformRequest(rec));
        return rec;
      }
    }
    Changes changes;
    if (in.topic == platform_topic::kAppUninstalled) {
      changes.Declare({"sessions", "channelsDisconnected"});
      if (shop->installed) {
        shop->installed = false;
        LC_ASSIGN_OR_RETURN(bool ok, w.UpdateShop(*shop));
        (void)ok;
        changes.Add("uninstalled");
      }
      LC_ASSIGN_OR_RETURN(std::int64_t ended, w.DeleteSessions(p.shopId, ""));
      changes.Add("sessions", ended);
      LC_ASSIGN_OR_RETURN(auto stored, w.ListChannelIntegrations(p.shopId));
      for (std::string_view ch : kIntegratedChannels) {
        bool connected = true;
        for (const auto& i : stored)
          if (i.channel == ch) connected = i.connected;
        if (!connected) continue;
        LC_RETURN_IF_ERROR(w.PutChannelIntegration(ChannelIntegration{p.shopId, std::string(ch), false, now}));
        changes.Add("channelsDisconnected");
      }
    } else if (in.topic == platform_topic::kCustomersRedact) {
      changes.Declare(
          {"contacts", "conversations", "messages", "browsedPages", "visitorSessions", "webhookEvents", "orders"});
      LC_ASSIGN_OR_RETURN(auto contacts, MatchContacts(w, p.shopId, in));
      // Exports made for an earlier data request are copies of the same
      // personal data: they are emptied too.
      LC_ASSIGN_OR_RETURN(std::int64_t exports, RedactDataRequests(w, p.shopId, contacts, in));
      if (exports) changes.Add("dataRequests", exports);
      for (auto& c : contacts) LC_RETURN_IF_ERROR(RedactContact(w, p.shopId, std::move(c), now, false, changes));
      for (const auto& name : in.orders) {
        LC_ASSIGN_OR_RETURN(auto order, FindNamedOrder(w, p.shopId, name));
        if (!order) continue;
        LC_ASSIGN_OR_RETURN(bool gone, w.DeleteCatalogItem(p.shopId, catalog_kind::kOrder, order->id));
        if (gone) changes.Add("orders");
      }
    } else if (in.topic == platform_topic::kCustomersDataRequest) {
      LC_ASSIGN_OR_RETURN(auto contacts, MatchContacts(w, p.shopId, in));
      DataRequest d;
      d.id = *in.dataRequestId;
      d.shopId = p.shopId;
      d.customerJson = CustomerRefJson(in);
      d.receivedAt = now;
      d.contacts = static_cast<std::int64_t>(contacts.size());
      LC_ASSIGN_OR_RETURN(d.exportJson, AssembleExport(w, p.shopId, contacts, in, now));
      LC_RETURN_IF_ERROR(w.InsertDataRequest(d));
      changes.Add("dataRequests");
      changes.Add("contacts", d.contacts);
    } else {  // shop_redact
      if (shop->installed) {
        rec.outcome = "refused";
        rec.message = "the store is still installed: shop redact applies only after the app is uninstalled";
        LC_RETURN_IF_ERROR(w.InsertPlatformRequest(rec));
        return rec;
      }
      changes.Declare({"members", "sessions", "files"});
      LC_ASSIGN_OR_RETURN(std::int64_t ended, w.DeleteSessions(p.shopId, ""));
      changes.Add("sessions", ended);
      LC_ASSIGN_OR_RETURN(auto members, w.ListMembers(p.shopId));
      for (const auto& m : members) {
        LC_ASSIGN_OR_RETURN(bool gone, w.DeleteMember(p.shopId, m.id));
        if (gone) changes.Add("members");
      }
      // The uploaded files' records go in this transaction (counted in the
      // audit); their bytes after it commits, below.
      LC_ASSIGN_OR_RETURN(std::int64_t files, DeleteShopUploadRecords(w, p.shopId));
      changes.Add("files", files);
    }
    rec.outcome = "applied";
    rec.changesJson = changes.Json();
    LC_RETURN_IF_ERROR(w.InsertPlatformRequest(rec));
    return rec;
  }));
  // The bytes of a shop redact's files, once the records are gone. On a
  // replay too: a run that committed but failed here is finished by the
  // platform's retry. Without a BlobStore there are no bytes to remove.
  if (in.topic == platform_topic::kShopRedact && done.outcome != "refused" && ctx_.options.blobs)
    LC_RETURN_IF_ERROR(files_.PurgeShopUploads(p.shopId));
  return done;
}

Result<std::vector<PlatformRequest>> PrivacyService::ListPlatformRequests(const Principal& p, int limit) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  if (limit < 1 || limit > kPlatformRequestsLimitMax)
    return Invalid(fmt::format("limit must be between 1 and {}", kPlatformRequestsLimitMax));
  return ReadValue<std::vector<PlatformRequest>>(ctx_.store(), [&](StoreReader& r) -> Result<std::vector<PlatformRequest>> {
    LC_ASSIGN_OR_RETURN(auto shop, r.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    return r.ListPlatformRequests(p.shopId, limit);
  });
}

Result<std::vector<DataRequest>> PrivacyService::ListDataRequests(const Principal& p) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return ReadValue<std::vector<DataRequest>>(ctx_.store(), [&](StoreReader& r) -> Result<std::vector<DataRequest>> {
    LC_ASSIGN_OR_RETURN(auto shop, r.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    return r.ListDataRequests(p.shopId);
  });
}

Result<DataRequest> PrivacyService::GetDataRequest(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return ReadValue<DataRequest>(ctx_.store(), [&](StoreReader& r) -> Result<DataRequest> {
    LC_ASSIGN_OR_RETURN(auto d, r.GetDataRequest(p.shopId, id));
    if (!d) return NotFound("data request");
    return std::move(*d);
  });
}

Result<std::vector<ChannelIntegration>> PrivacyService::ListChannelIntegrations(const Principal& p) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return ReadValue<std::vector<ChannelIntegration>>(
      ctx_.store(), [&](StoreReader& r) -> Result<std::vector<ChannelIntegration>> {
        LC_ASSIGN_OR_RETURN(auto shop, r.GetShop(p.shopId));
        if (!shop) return NotFound("store");
        LC_ASSIGN_OR_RETURN(auto stored, r.ListChannelIntegrations(p.shopId));
        std::vector<ChannelIntegration> out;
        for (std::string_view ch : kIntegratedChannels) {
          ChannelIntegration i{p.shopId, std::string(ch), true, 0};
          for (const auto& s : stored)
            if (s.channel == ch) i = s;
          out.push_back(std::move(i));
        }
        return out;
      });
}

Result<ChannelIntegration> PrivacyService::SetChannelIntegration(const Principal& p, const std::string& channel,
                                                              bool connected) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  if (!IsIntegratedChannel(channel)) return Invalid(UnknownIntegratedChannelMessage());
  ChannelIntegration i{p.shopId, channel, connected, ctx_.clock->NowMillis()};
  LC_RETURN_IF_ERROR(ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    return w.PutChannelIntegration(i);
  }));
  return i;
}

Result<Shop> PrivacyService::SetShopInstalled(const Principal& p, bool installed) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return WriteValue<Shop>(ctx_.store(), [&](StoreWriter& w) -> Result<Shop> {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    shop->installed = installed;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateShop(*shop));
    (void)ok;
    return std::move(*shop);
  });
}

Status PrivacyService::DeleteCustomer(const Principal& p, const std::string& customerUuid) {
  if (p.kind == Principal::Kind::kApiKey)
    return MakeError(ErrorCode::kForbidden, "contacts can be deleted only from the admin inbox (spec rule 8)");
  const Millis now = ctx_.clock->NowMillis();
  return ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, w.GetCustomer(p.shopId, customerUuid));
    if (!c) return NotFound("customer");
    Changes ignored;
    LC_RETURN_IF_ERROR(RedactContact(w, p.shopId, *c, now, /*detach=*/true, ignored));
    LC_ASSIGN_OR_RETURN(bool gone, w.DeleteCustomer(p.shopId, customerUuid));
    if (!gone) return NotFound("customer");
    return Status::Ok();
  });
}

// The rule the uninstall's disconnect enforces on agent replies
// (conversation_messages.cc calls it with the conversation's channel).
Status internal::CheckChannelConnected(StoreReader& r, const std::string& shopId, const std::string& channel) {
  if (!IsIntegratedChannel(channel)) return Status::Ok();
  LC_ASSIGN_OR_RETURN(auto stored, r.ListChannelIntegrations(shopId));
  for (const auto& i : stored)
    if (i.channel == channel && !i.connected)
      return MakeError(ErrorCode::kChannelUnavailable,
                       fmt::format("cannot deliver on {}: the store's {} integration is disconnected (the app was "
                                   "uninstalled, or an operator disconnected it); reconnect it first, or send the "
                                   "reply as a note",
                                   channel, channel));
  return Status::Ok();
}

}  // namespace livechat
