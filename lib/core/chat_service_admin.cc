// ChatService: operator calls (livechatctl, the demo store, seeding) and the
// internal writes other surfaces fill in (browsed pages, summaries).
#include <fmt/format.h>

#include "livechat/crypto.h"
#include "core/service_internal.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

Result<Shop> ChatService::CreateShop(const CreateShopInput& in) {
  LC_RETURN_IF_ERROR(CheckText(in.name, "name", 255));
  Shop s;
  s.id = "shop_" + random_->Hex(8);
  s.appId = "app_" + random_->Hex(12);
  s.name = in.name;
  s.plan = in.plan;
  s.autoAssign = in.autoAssign;
  s.createdAt = clock_->NowMillis();
  LC_RETURN_IF_ERROR(store().Write([&](StoreWriter& w) { return w.InsertShop(s); }));
  return s;
}

Result<Shop> ChatService::GetShop(const std::string& shopId) {
  return ReadValue<Shop>(store(), [&](StoreReader& r) -> Result<Shop> {
    LC_ASSIGN_OR_RETURN(auto s, r.GetShop(shopId));
    if (!s) return NotFound("store");
    return std::move(*s);
  });
}

Result<CreatedKey> ChatService::CreateApiKey(const Principal& p, const CreateKeyInput& in) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  LC_RETURN_IF_ERROR(CheckText(in.name, "name", limits().keyNameMax));
  const Millis now = clock_->NowMillis();
  return WriteValue<CreatedKey>(store(), [&](StoreWriter& w) -> Result<CreatedKey> {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    if (!PlanAllowsApiKeys(shop->plan))
      return MakeError(ErrorCode::kForbidden,
                       fmt::format("creating an API key requires the Pro or Plus plan (this store is on {})",
                                   PlanName(shop->plan)));
    LC_ASSIGN_OR_RETURN(auto keys, w.ListApiKeys(p.shopId));
    int active = 0;
    for (const auto& k : keys)
      if (!k.revokedAt) ++active;
    if (active >= limits().maxActiveKeys)
      return MakeError(ErrorCode::kConflict, fmt::format("this store already has {} active API keys (the maximum): "
                                                         "delete one before creating another",
                                                         limits().maxActiveKeys));
    CreatedKey out;
    out.secret = "sk_" + random_->Hex(16);
    out.key.id = "key_" + random_->Hex(8);
    out.key.shopId = p.shopId;
    out.key.name = in.name;
    out.key.keyHash = Sha256Hex(out.secret);
    out.key.prefix = out.secret.substr(0, 7);
    out.key.legacy = in.legacy;
    out.key.permissions = in.legacy ? 0 : in.permissions;
    out.key.createdAt = now;
    out.key.activeFrom = now + limits().keyActivationDelayMillis;
    LC_RETURN_IF_ERROR(w.InsertApiKey(out.key));
    return out;
  });
}

Result<std::vector<ApiKey>> ChatService::ListApiKeys(const Principal& p) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return ReadValue<std::vector<ApiKey>>(store(), [&](StoreReader& r) { return r.ListApiKeys(p.shopId); });
}

Status ChatService::DeleteApiKey(const Principal& p, const std::string& keyId) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  const Millis now = clock_->NowMillis();
  return store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(bool ok, w.RevokeApiKey(p.shopId, keyId, now));
    if (!ok) return NotFound("API key");
    return Status::Ok();
  });
}

Result<ApiKey> ChatService::UpdateApiKeyPermissions(const Principal& p, const std::string& keyId,
                                                    std::uint32_t permissions) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return WriteValue<ApiKey>(store(), [&](StoreWriter& w) -> Result<ApiKey> {
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateApiKeyPermissions(p.shopId, keyId, permissions));
    if (!ok) return NotFound("API key");
    LC_ASSIGN_OR_RETURN(auto keys, w.ListApiKeys(p.shopId));
    for (auto& k : keys)
      if (k.id == keyId) return std::move(k);
    return NotFound("API key");
  });
}

Result<Member> ChatService::CreateMember(const Principal& p, const CreateMemberInput& in) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  LC_RETURN_IF_ERROR(CheckText(in.email, "email", 254));
  if (in.email.find('@') == std::string::npos) return Invalid("email must be an email address");
  if (!IsMemberRole(in.role)) return Invalid(std::string(kMemberRoleMessage));
  if (in.firstName) LC_RETURN_IF_ERROR(CheckText(in.firstName, "firstName", 100));
  if (in.lastName) LC_RETURN_IF_ERROR(CheckText(in.lastName, "lastName", 100));
  Member m;
  m.id = "mem_" + random_->Hex(8);
  m.shopId = p.shopId;
  m.email = in.email;
  m.firstName = in.firstName;
  m.lastName = in.lastName;
  m.role = in.role;
  m.active = in.active;
  m.enableAwayMode = false;
  m.avatarUrl = in.avatarUrl.value_or("https://www.gravatar.com/avatar/" + Sha256Hex(in.email).substr(0, 32) + "?d=identicon");
  m.createdAt = clock_->NowMillis();
  if (in.password) {
    if (in.password->size() < 8) return Invalid("password must be at least 8 characters");
    m.passwordHash = HashPassword(*in.password);
    if (m.passwordHash.empty()) return MakeError(ErrorCode::kInternal, "could not hash the password");
  }
  LC_RETURN_IF_ERROR(store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    LC_ASSIGN_OR_RETURN(auto same, w.FindMembersByEmail(in.email));
    for (const auto& other : same)
      if (other.shopId == p.shopId) return Invalid("a member with this email already exists in this store");
    return w.InsertMember(m);
  }));
  return m;
}

Status ChatService::RecordBrowsedPage(const Principal& p, const std::string& id, const BrowsedPage& page) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  LC_RETURN_IF_ERROR(CheckText(page.url, "url", 2048));
  return store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    return w.InsertBrowsedPage(p.shopId, c.id, page, limits().browsedPagesKept);
  });
}

Status ChatService::PutSummary(const Principal& p, const std::string& id, const std::string& text,
                               const std::string& summarizer) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  const Millis now = clock_->NowMillis();
  return store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    return w.PutSummary(p.shopId, Summary{c.id, text, summarizer, now});
  });
}

Result<std::vector<Event>> ChatService::ListEvents(const Principal& p, int limit) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  return ReadValue<std::vector<Event>>(store(), [&](StoreReader& r) { return r.ListEvents(p.shopId, limit); });
}

namespace {

// Words of shop chat, most common first: SeedText draws them with a skew
// (the first ones in most messages, the last ones rarely), so a seeded
// store has the word frequencies a search meets in a real one.
constexpr const char* kSeedWords[] = {
    "the", "my", "order", "is", "hi", "please", "thanks", "can", "you", "help", "when", "will", "it", "arrive",
    "where", "parcel", "delivery", "shipping", "size", "return", "refund", "tracking", "number", "address",
    "change", "cancel", "payment", "card", "discount", "code", "stock", "color", "jacket", "shoes", "dress",
    "shirt", "jeans", "hat", "scarf", "gloves", "boots", "sneakers", "sweater", "coat", "bag", "wallet", "belt",
    "watch", "ring", "necklace", "bracelet", "earrings", "sunglasses", "backpack", "umbrella", "socks", "pajamas",
    "blue", "red", "green", "black", "white", "grey", "navy", "beige", "pink", "purple", "small", "medium",
    "large", "wrong", "damaged", "missing", "late", "early", "today", "tomorrow", "yesterday", "week", "express",
    "standard", "international", "canada", "germany", "france", "italy", "spain", "japan", "australia",
    "invoice", "receipt", "exchange", "warranty", "voucher", "gift", "wrapping", "wholesale", "bulk", "sample",
    "cotton", "wool", "leather", "linen", "silk", "denim", "cashmere", "velvet", "suede", "nylon", "polyester",
    "zipper", "button", "seam", "stitching", "label", "fit", "loose", "tight", "longer", "shorter", "wider",
    "courier", "postman", "neighbour", "doorstep", "locker", "pickup", "warehouse", "customs", "duties",
    "birthday", "wedding", "anniversary", "christmas", "holiday", "weekend", "newsletter", "subscription",
    "loyalty", "points", "coupon", "promo", "sale", "clearance", "preorder", "restock", "backorder", "waitlist",
    "crème", "brûlée", "café", "naïve", "fiancée", "zürich", "são", "paulo", "kraków", "malmö", "ålesund",
};
constexpr std::size_t kSeedWordCount = sizeof(kSeedWords) / sizeof(kSeedWords[0]);

// Message k of seeded conversation i: 6 to 13 words and an order number,
// the same for the same (i, k) on every run.
std::string SeedText(int i, int k) {
  std::uint64_t x = (static_cast<std::uint64_t>(i) << 20) ^ static_cast<std::uint64_t>(k) ^ 0x9E3779B97F4A7C15ull;
  auto next = [&x] {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 0x2545F4914F6CDD1Dull;
  };
  const int words = 6 + static_cast<int>(next() % 8);
  std::string out;
  for (int w = 0; w < words; ++w) {
    // The square of a uniform draw: index 0 about 6x as likely as the middle.
    const double u = static_cast<double>(next() % 1000000) / 1000000.0;
    const auto at = static_cast<std::size_t>(u * u * static_cast<double>(kSeedWordCount));
    if (!out.empty()) out += ' ';
    out += kSeedWords[std::min(at, kSeedWordCount - 1)];
  }
  return out + fmt::format(" #{}", 1000 + i);
}

}  // namespace

Status ChatService::Seed(const Principal& p, const SeedInput& in) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  if (in.conversations < 0 || in.messagesPerConversation < 0)
    return Invalid("conversations and messages-per-conversation must be 0 or more");
  static const char* const kChannels[] = {"online_store", "email", "facebook", "instagram", "whatsapp"};
  static const char* const kTags[] = {"vip", "refund", "shipping", "sizing", "wholesale"};
  const Millis now = clock_->NowMillis();

  // One agent to answer every seeded conversation.
  std::string agentId;
  std::string agentName;
  LC_RETURN_IF_ERROR(store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    LC_ASSIGN_OR_RETURN(auto members, w.ListMembers(p.shopId));
    for (const auto& m : members)
      if (m.active) {
        agentId = m.id;
        agentName = MemberFullName(m);
        return Status::Ok();
      }
    Member m;
    m.id = "mem_" + random_->Hex(8);
    m.shopId = p.shopId;
    m.email = "seed-agent@example.com";
    m.firstName = "Seed";
    m.lastName = "Agent";
    m.role = "member";
    m.createdAt = now;
    agentId = m.id;
    agentName = MemberFullName(m);
    return w.InsertMember(m);
  }));

  // Bulk load: events are not fired for seeded data (it is not live traffic).
  constexpr int kBatch = 500;
  const Millis base = now - static_cast<Millis>(in.conversations) * 60'000;
  for (int start = 0; start < in.conversations; start += kBatch) {
    const int end = std::min(in.conversations, start + kBatch);
    LC_RETURN_IF_ERROR(store().Write([&](StoreWriter& w) -> Status {
      for (int i = start; i < end; ++i) {
        const Millis t0 = base + static_cast<Millis>(i) * 60'000;
        const std::string channel = kChannels[i % 5];
        Customer cu;
        cu.id = random_->Uuid();
        cu.shopId = p.shopId;
        cu.name = fmt::format("Seed Customer {}", i);
        cu.firstName = "Seed";
        cu.lastName = fmt::format("Customer {}", i);
        cu.email = fmt::format("seed{}@example.com", i);
        cu.type = "guest";
        cu.channels = {channel};
        cu.createdAt = t0;
        cu.lastChatAt = t0;
        if (channel != "online_store" && channel != "email") cu.channelRecipient = "seed-recipient-" + std::to_string(i);
        LC_RETURN_IF_ERROR(w.InsertCustomer(cu));

        Conversation c;
        c.id = random_->Uuid();
        c.shopId = p.shopId;
        c.customerUuid = cu.id;
        c.customerName = cu.name;
        c.customerEmail = cu.email;
        c.customerType = cu.type;
        c.channel = channel;
        c.channels = {channel};
        c.status = i % 3 == 0 ? "resolved" : "open";
        c.isRead = i % 2 == 0;
        c.hasFirstMsg = in.messagesPerConversation > 0;
        c.tags = {kTags[i % 5]};
        c.createdAt = t0;
        c.messageCount = in.messagesPerConversation;
        const Millis last = t0 + std::max(0, in.messagesPerConversation - 1) * 1000;
        c.lastActive = last;
        c.updatedAt = last;
        std::vector<Message> msgs;
        for (int k = 0; k < in.messagesPerConversation; ++k) {
          Message m;
          m.id = random_->Uuid();
          m.conversationId = c.id;
          m.shopId = p.shopId;
          const bool customer = k % 2 == 0;
          m.senderType = customer ? "customer" : "agent";
          m.senderName = customer ? *cu.name : agentName;
          if (!customer) {
            m.memberId = agentId;
            m.isAdmin = true;
          }
          m.isFirst = k == 0;
          m.text = SeedText(i, k);
          m.createdAt = t0 + k * 1000;
          if (customer) c.lastCustomerMessageAt = m.createdAt;
          c.lastMessage = LastMessage{m.text, m.senderType, m.createdAt};
          msgs.push_back(std::move(m));
        }
        LC_RETURN_IF_ERROR(w.InsertConversation(c));
        for (auto& m : msgs) LC_RETURN_IF_ERROR(w.InsertMessage(m));
      }
      return Status::Ok();
    }));
  }
  return Status::Ok();
}

Result<CreatedKey> ChatService::CreateDemo(const std::string& shopName) {
  LC_ASSIGN_OR_RETURN(auto shop, CreateShop(CreateShopInput{shopName, Plan::kPro, /*autoAssign=*/true}));
  const Principal sys = Principal::System(shop.id);
  LC_ASSIGN_OR_RETURN(auto ada, CreateMember(sys, {kDemoAgentEmail, "Ada", "Lovelace", "admin",
                                                   std::string(kDemoAgentPassword), true, std::nullopt}));
  LC_ASSIGN_OR_RETURN(auto grace, CreateMember(sys, {"grace@demo.example", "Grace", "Hopper", "member",
                                                     std::nullopt, true, std::nullopt}));
  LC_RETURN_IF_ERROR(CreateMember(sys, {"alan@demo.example", "Alan", "Turing", "member", std::nullopt, false,
                                        std::nullopt}));

  struct DemoSeed {
    const char* channel;
    const char* name;
    const char* email;
    const char* recipient;
    const char* text;
  };
  const DemoSeed seeds[] = {
      {"online_store", "Maya Patel", "maya@example.com", nullptr, "Hi! Do you ship to Canada?"},
      {"email", "Liam Chen", "liam@example.com", nullptr, "My order #1042 arrived damaged."},
      {"whatsapp", "Sofia Rossi", nullptr, "+393331234567", "Can I change the size of my order?"},
      {"facebook", "Noah Schmidt", nullptr, "psid-8842", "Is the blue jacket back in stock?"},
      {"instagram", "Emma Dubois", nullptr, "igsid-5521", "Love the new collection! Any discount codes?"},
      {"online_store", nullptr, nullptr, nullptr, "Hello, is anyone there?"},
  };
  std::vector<Conversation> convs;
  for (const auto& s : seeds) {
    InboundMessageInput in;
    in.channel = s.channel;
    if (s.name) in.customerName = s.name;
    if (s.email) in.customerEmail = s.email;
    if (s.recipient) in.channelRecipient = s.recipient;
    in.text = s.text;
    LC_ASSIGN_OR_RETURN(auto c, ReceiveInbound(sys, in));
    convs.push_back(std::move(c));
  }
  // A returning customer: a second conversation for Maya (related conversations).
  {
    InboundMessageInput in;
    in.customerName = "Maya Patel";
    in.customerEmail = "maya@example.com";
    in.text = "Following up: my parcel to Toronto has not moved in a week.";
    LC_ASSIGN_OR_RETURN(auto c, ReceiveInbound(sys, in));
    convs.push_back(std::move(c));
  }
  SendMessageInput reply;
  reply.memberId = ada.id;
  reply.text = "Yes, we ship to Canada in 5-7 business days.";
  LC_RETURN_IF_ERROR(SendMessage(sys, convs[0].id, reply));
  reply.memberId = grace.id;
  reply.text = "Sorry to hear that! Could you send a photo of the damage?";
  LC_RETURN_IF_ERROR(SendMessage(sys, convs[1].id, reply));
  SendMessageInput note;
  note.memberId = grace.id;
  note.isNote = true;
  note.text = "Check with the warehouse about packaging for order #1042.";
  LC_RETURN_IF_ERROR(SendMessage(sys, convs[1].id, note));
  LC_RETURN_IF_ERROR(AddTags(sys, convs[0].id, {"shipping", "international"}));
  LC_RETURN_IF_ERROR(AddTags(sys, convs[1].id, {"damaged", "vip"}));
  LC_RETURN_IF_ERROR(AddTags(sys, convs[2].id, {"sizing"}));
  LC_RETURN_IF_ERROR(CreateNote(sys, convs[1].id, std::string("Offer a replacement or a full refund.")));
  LC_RETURN_IF_ERROR(UpsertAttribute(sys, convs[1].id, std::string("orderNumber"), std::string("1042")));
  LC_RETURN_IF_ERROR(Assign(sys, convs[2].id, grace.id));
  LC_RETURN_IF_ERROR(SetState(sys, convs[3].id, std::string("resolved")));
  LC_RETURN_IF_ERROR(RecordBrowsedPage(sys, convs[0].id, {"https://demo.example/products/parka", "Parka", clock_->NowMillis()}));
  // The AI agent is handling the Instagram conversation.
  LC_RETURN_IF_ERROR(store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, shop.id, convs[4].id));
    c.isChatBot = true;
    c.hasChatBot = true;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c));
    (void)ok;
    return Status::Ok();
  }));
  // One conversation still in the older datastore: reachable by id, never listed.
  {
    InboundMessageInput in;
    in.customerName = "Oliver Legacy";
    in.customerEmail = "oliver@example.com";
    in.text = "An old question from before the migration.";
    in.legacy = true;
    LC_RETURN_IF_ERROR(ReceiveInbound(sys, in));
  }
  CreateKeyInput key;
  key.name = "Demo key";
  key.permissions = kPermAll;
  return CreateApiKey(sys, key);
}

}  // namespace livechat
