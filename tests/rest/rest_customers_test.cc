// REST: the "Customers and members" table of the spec.
#include <doctest/doctest.h>

#include "support/rest_fixture.h"

namespace livechat {
namespace {

using namespace livechat::testing;

TEST_CASE("GET /chat/customers/{uuid}: the 30-key profile, never the channel identity") {
  RestFixture f;
  InboundMessageInput in;
  in.channel = "whatsapp";
  in.customerName = "Sofia Rossi";
  in.customerEmail = "sofia@example.com";
  in.customerPhone = "+393331234567";
  in.channelRecipient = "wa-recipient-secret";
  in.text = "ciao";
  auto conv = f.Inbound(in);
  REQUIRE(conv.customerUuid.has_value());

  auto r = f.Get("/chat/customers/" + *conv.customerUuid);
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.json) == std::set<std::string>{"data"});
  CHECK(KeySet(r.data()) == Keys(kCustomerKeys));
  CHECK(KeySet(r.data()).size() == 31);
  CHECK(r.raw.body.find("wa-recipient-secret") == std::string::npos);
  CHECK(Str(At(r.data(), "id")) == *conv.customerUuid);
  CHECK(Str(At(r.data(), "name")) == "Sofia Rossi");
  CHECK(Str(At(r.data(), "firstName")) == "Sofia");
  CHECK(Str(At(r.data(), "lastName")) == "Rossi");
  CHECK(Str(At(r.data(), "email")) == "sofia@example.com");
  CHECK(Str(At(r.data(), "phone")) == "+393331234567");
  CHECK(Str(At(r.data(), "type")) == "guest");
  CHECK(StrList(At(r.data(), "channels")) == std::vector<std::string>{"whatsapp"});
  CHECK(At(r.data(), "tags").IsArray());
  CHECK(At(r.data(), "customAttributes").IsObject());
  CHECK(At(r.data(), "shopifyId").IsNull());
  CHECK(At(r.data(), "totalSpent").IsNull());
  CHECK(Str(At(r.data(), "createdAt")) == "2026-01-01T00:00:00.000Z");
  CHECK(Str(At(r.data(), "lastChatAt")) == "2026-01-01T00:00:00.000Z");

  // The conversation's customerUuid is the customer's id.
  auto detail = f.Get("/chat/conversations/" + conv.id);
  CHECK(Str(At(detail.data(), "customerUuid")) == *conv.customerUuid);

  auto missing = f.Get("/chat/customers/no-such-customer");
  CHECK(missing.status() == 404);
  CHECK(missing.code() == "NOT_FOUND");
  auto other = f.NewShop("Other");
  InboundMessageInput theirsIn;
  theirsIn.customerEmail = "sofia@example.com";
  theirsIn.text = "same email, other store";
  auto theirs = f.Inbound(theirsIn, other.id);
  REQUIRE(theirs.customerUuid != conv.customerUuid);
  auto foreign = f.Get("/chat/customers/" + *theirs.customerUuid);
  CHECK(foreign.status() == 404);
  CHECK(foreign.raw.body == f.Get("/chat/customers/unknown-id").raw.body);
}

TEST_CASE("GET /chat/customers/{uuid}/conversations: paginated, default 20, max 100") {
  RestFixture f;
  std::vector<std::string> mine;
  for (int i = 0; i < 105; ++i) {
    f.clock.Advance(1000);
    mine.insert(mine.begin(), f.InboundFrom("maya@example.com", "visit " + std::to_string(i)).id);
  }
  f.InboundFrom("other@example.com", "not hers");
  const std::string uuid = *f.Load(mine.front()).customerUuid;

  auto r = f.Get("/chat/customers/" + uuid + "/conversations");
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.json) == std::set<std::string>{"data", "paging"});
  CHECK(r.data().Size() == 20);
  CHECK(KeySet(At(r.data(), 0)) == Keys(kConversationListKeys));
  CHECK(Column(r.data(), "id") == std::vector<std::string>(mine.begin(), mine.begin() + 20));
  CHECK(At(At(r.json, "paging"), "hasMore").IsTrue());

  auto max = f.Get("/chat/customers/" + uuid + "/conversations?limit=500");
  CHECK(max.data().Size() == 100);
  auto next = f.Get("/chat/customers/" + uuid + "/conversations?limit=100&cursor=" +
                    PercentEncode(Str(At(At(max.json, "paging"), "nextCursor"))));
  CHECK(next.data().Size() == 5);
  CHECK(At(At(next.json, "paging"), "nextCursor").IsNull());
  auto all = Column(max.data(), "id");
  for (auto& id : Column(next.data(), "id")) all.push_back(id);
  CHECK(all == mine);

  CHECK(f.Get("/chat/customers/nobody/conversations").status() == 404);
}

TEST_CASE("GET /chat/members and /chat/members/{id}: 10 keys, no credentials") {
  RestFixture f;
  auto off = f.NewMember("off@example.com", /*active=*/false);
  auto r = f.Get("/chat/members");
  REQUIRE(r.status() == 200);
  CHECK(KeySet(r.json) == std::set<std::string>{"data"});
  REQUIRE(r.data().Size() == 2);
  for (const auto& m : r.data().GetArray()) CHECK(KeySet(m) == Keys(kMemberKeys));
  CHECK(r.raw.body.find("password") == std::string::npos);
  CHECK(r.raw.body.find("$argon2") == std::string::npos);
  CHECK(r.raw.body.find("token") == std::string::npos);
  CHECK(Column(r.data(), "id") == std::vector<std::string>{f.agent.id, off.id});
  const auto& ada = At(r.data(), 0);
  CHECK(Str(At(ada, "email")) == "agent@example.com");
  CHECK(Str(At(ada, "fullName")) == "Ada Agent");
  CHECK(Str(At(ada, "role")) == "member");
  CHECK(At(ada, "active").IsTrue());
  CHECK(At(At(r.data(), 1), "active").IsFalse());
  CHECK(Str(At(At(r.data(), 1), "fullName")) == "off@example.com");

  auto one = f.Get("/chat/members/" + f.agent.id);
  REQUIRE(one.status() == 200);
  CHECK(KeySet(one.data()) == Keys(kMemberKeys));
  CHECK(Str(At(one.data(), "id")) == f.agent.id);
  CHECK(Str(At(one.data(), "createdAt")) == "2026-01-01T00:00:00.000Z");

  CHECK(f.Get("/chat/members/mem_nope").status() == 404);
  auto other = f.NewShop("Other");
  CreateMemberInput mi;
  mi.email = "theirs@example.com";
  auto theirs = RestFixture::Must(f.service().directory().CreateMember(Principal::System(other.id), mi));
  auto foreign = f.Get("/chat/members/" + theirs.id);
  CHECK(foreign.status() == 404);
  CHECK(foreign.raw.body == f.Get("/chat/members/mem_nope").raw.body);
}

}  // namespace
}  // namespace livechat
