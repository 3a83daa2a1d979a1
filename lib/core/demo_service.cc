// DemoService: the demo store and seeding (livechatctl, livechatd --demo),
// made with the other services' operations.
#include <fmt/format.h>

#include "livechat/crypto.h"
#include "core/service_internal.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

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

Status DemoService::Seed(const Principal& p, const SeedInput& in) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  if (in.conversations < 0 || in.messagesPerConversation < 0)
    return Invalid("conversations and messages-per-conversation must be 0 or more");
  static const char* const kChannels[] = {"online_store", "email", "facebook", "instagram", "whatsapp"};
  static const char* const kTags[] = {"vip", "refund", "shipping", "sizing", "wholesale"};
  const Millis now = ctx_.clock->NowMillis();

  // One agent to answer every seeded conversation.
  std::string agentId;
  std::string agentName;
  LC_RETURN_IF_ERROR(ctx_.store().Write([&](StoreWriter& w) -> Status {
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
    m.id = "mem_" + ctx_.random->Hex(8);
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
    LC_RETURN_IF_ERROR(ctx_.store().Write([&](StoreWriter& w) -> Status {
      for (int i = start; i < end; ++i) {
        const Millis t0 = base + static_cast<Millis>(i) * 60'000;
        const std::string channel = kChannels[i % 5];
        Customer cu;
        cu.id = ctx_.random->Uuid();
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
        c.id = ctx_.random->Uuid();
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
          m.id = ctx_.random->Uuid();
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

Result<CreatedKey> DemoService::CreateDemo(const std::string& shopName) {
  LC_ASSIGN_OR_RETURN(auto shop, directory_.CreateShop(CreateShopInput{shopName, Plan::kPro, /*autoAssign=*/true}));
  const Principal sys = Principal::System(shop.id);
  LC_ASSIGN_OR_RETURN(auto ada, directory_.CreateMember(sys, {kDemoAgentEmail, "Ada", "Lovelace", "admin",
                                                   std::string(kDemoAgentPassword), true, std::nullopt}));
  LC_ASSIGN_OR_RETURN(auto grace, directory_.CreateMember(sys, {"grace@demo.example", "Grace", "Hopper", "member",
                                                     std::nullopt, true, std::nullopt}));
  LC_RETURN_IF_ERROR(directory_.CreateMember(sys, {"alan@demo.example", "Alan", "Turing", "member", std::nullopt, false,
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
    LC_ASSIGN_OR_RETURN(auto c, conversations_.ReceiveInbound(sys, in));
    convs.push_back(std::move(c));
  }
  // A returning customer: a second conversation for Maya (related conversations).
  {
    InboundMessageInput in;
    in.customerName = "Maya Patel";
    in.customerEmail = "maya@example.com";
    in.text = "Following up: my parcel to Toronto has not moved in a week.";
    LC_ASSIGN_OR_RETURN(auto c, conversations_.ReceiveInbound(sys, in));
    convs.push_back(std::move(c));
  }
  SendMessageInput reply;
  reply.memberId = ada.id;
  reply.text = "Yes, we ship to Canada in 5-7 business days.";
  LC_RETURN_IF_ERROR(conversations_.SendMessage(sys, convs[0].id, reply));
  reply.memberId = grace.id;
  reply.text = "Sorry to hear that! Could you send a photo of the damage?";
  LC_RETURN_IF_ERROR(conversations_.SendMessage(sys, convs[1].id, reply));
  SendMessageInput note;
  note.memberId = grace.id;
  note.isNote = true;
  note.text = "Check with the warehouse about packaging for order #1042.";
  LC_RETURN_IF_ERROR(conversations_.SendMessage(sys, convs[1].id, note));
  LC_RETURN_IF_ERROR(annotations_.AddTags(sys, convs[0].id, {"shipping", "international"}));
  LC_RETURN_IF_ERROR(annotations_.AddTags(sys, convs[1].id, {"damaged", "vip"}));
  LC_RETURN_IF_ERROR(annotations_.AddTags(sys, convs[2].id, {"sizing"}));
  LC_RETURN_IF_ERROR(annotations_.CreateNote(sys, convs[1].id, std::string("Offer a replacement or a full refund.")));
  LC_RETURN_IF_ERROR(annotations_.UpsertAttribute(sys, convs[1].id, std::string("orderNumber"), std::string("1042")));
  LC_RETURN_IF_ERROR(conversations_.Assign(sys, convs[2].id, grace.id));
  LC_RETURN_IF_ERROR(conversations_.SetState(sys, convs[3].id, std::string("resolved")));
  LC_RETURN_IF_ERROR(conversations_.RecordBrowsedPage(sys, convs[0].id, {"https://demo.example/products/parka", "Parka", ctx_.clock->NowMillis()}));
  // The AI agent is handling the Instagram conversation.
  LC_RETURN_IF_ERROR(ctx_.store().Write([&](StoreWriter& w) -> Status {
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
    LC_RETURN_IF_ERROR(conversations_.ReceiveInbound(sys, in));
  }
  CreateKeyInput key;
  key.name = "Demo key";
  key.permissions = kPermAll;
  return directory_.CreateApiKey(sys, key);
}

}  // namespace livechat
