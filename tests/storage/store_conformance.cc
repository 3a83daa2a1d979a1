// Store conformance, the whole Store (livechat/store.h): what no single
// interface owns: a Write is one transaction, and no interface lets one shop
// see or change another's records. Each test runs once per fixture listed in
// STORE_TEST (store_fixtures.h).
//
// Every interface of livechat/store/*.h has its own file, run against every
// backend the same way:
//   store_accounts_conformance       Shop*, ApiKey*, MemberAndSession*
//   store_customers_conformance      Customer*
//   store_conversations_conformance  Conversation* (lists, filters, tags)
//   store_search_conformance         Conversation* search
//   store_messages_conformance       Message*, Note*, Attribute*
//   store_activity_conformance       Activity*
//   store_outbox_conformance         Outbox*
//   store_webhooks_conformance       WebhookSubscription*, DeliveryQueue*
//   store_knowledge_conformance      Knowledge*
//   store_visitor_sessions_conformance VisitorSession*
//   store_files_conformance          FileRecord*
//   store_summary_jobs_conformance   SummaryJob*
//   store_privacy_conformance        Compliance*, and the lookups and deletes redaction needs
//   store_idempotency_conformance    Idempotency*
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

// ------------------------------ transactions (Store::Write)

STORE_TEST("write: an error from fn rolls back everything it wrote") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1"});
  Status st = s.Write([&](StoreWriter& w) -> Status {
    Message m = MakeMessage(kShopA, "c1", "m1", 1000);
    LC_RETURN_IF_ERROR(w.InsertMessage(m));
    LC_RETURN_IF_ERROR(w.AppendEvent(Event{"e1", kShopA, "message.created", "c1", 1000, "{}"}));
    Conversation c2 = MakeConversation(kShopA, "c2", 2000);
    LC_RETURN_IF_ERROR(w.InsertConversation(c2));
    LC_RETURN_IF_ERROR(w.ReplaceConversationTags(kShopA, "c1", {"t"}));
    // The writer sees its own uncommitted work.
    LC_ASSIGN_OR_RETURN(auto seen, w.GetMessage(kShopA, "c1", "m1"));
    if (!seen) return Error{ErrorCode::kInternal, "own write not visible"};
    return Error{ErrorCode::kConflict, "changed my mind"};
  });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kConflict);
  CHECK(st.error().message == "changed my mind");

  CHECK(MessageIds(s, Messages(kShopA, "c1")).empty());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m1"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListEvents(kShopA, 10); }).empty());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c2"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); }).empty());
  CHECK(ListIds(s, Query(kShopA)) == Ids_{"c1"});

  // The store stays usable after a rollback.
  Put(s, [&](StoreWriter& w) {
    Message m = MakeMessage(kShopA, "c1", "m1", 1000);
    return w.InsertMessage(m);
  });
  CHECK(MessageIds(s, Messages(kShopA, "c1")) == Ids_{"m1"});
}

STORE_TEST("write: a failed statement inside fn fails the whole write") {
  StoreFixture fx;
  Store& s = fx.store();
  Put(s, [&](StoreWriter& w) { return w.InsertShop(MakeShop(kShopA)); });
  Status st = s.Write([&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop(kShopB)));
    return w.InsertShop(MakeShop(kShopA));  // duplicate
  });
  CheckInternalError(st);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetShop(kShopB); }).has_value());
}

// ------------------------------ shop scoping sweep (every interface above)

STORE_TEST("scoping: nothing of shop A is visible or writable through shop B") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation c = MakeFullConversation(kShopA, "c1");
  Message m = MakeFullMessage(kShopA, "c1", "m1");
  Member member = MakeMember(kShopA, "m1", 1000);
  Customer customer = MakeFullCustomer(kShopA, "cu1");
  Note note{"n1", kShopA, "c1", "note", false, 1, 1};
  Attribute attr{"a1", kShopA, "c1", "plan", "gold", 1, 1};
  ApiKey key = MakeApiKey(kShopA, "k1", 1000);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop(kShopA)));
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    LC_RETURN_IF_ERROR(w.InsertMessage(m));
    LC_RETURN_IF_ERROR(w.InsertMember(member));
    LC_RETURN_IF_ERROR(w.InsertCustomer(customer));
    LC_RETURN_IF_ERROR(w.InsertNote(note));
    LC_RETURN_IF_ERROR(w.InsertAttribute(attr));
    LC_RETURN_IF_ERROR(w.InsertApiKey(key));
    LC_RETURN_IF_ERROR(w.InsertBrowsedPage(kShopA, "c1", BrowsedPage{"https://x", std::nullopt, 5}, 50));
    LC_RETURN_IF_ERROR(w.PutSummary(kShopA, Summary{"c1", "sum", "x", 1}));
    LC_RETURN_IF_ERROR(w.PutTyping(kShopA, TypingState{"c1", "m1", true, 1}));
    return w.AppendEvent(Event{"e1", kShopA, "message.created", "c1", 1, "{}"});
  });

  Status st = s.Read([&](StoreReader& r) -> Status {
    const std::string pg = std::to_string(*c.pgConvoId);
    CHECK_FALSE(Value(r.GetShop(kShopB)).has_value());
    CHECK(Value(r.ListApiKeys(kShopB)).empty());
    CHECK_FALSE(Value(r.GetMember(kShopB, "m1")).has_value());
    CHECK(Value(r.ListMembers(kShopB)).empty());
    CHECK_FALSE(Value(r.GetCustomer(kShopB, "cu1")).has_value());
    CHECK_FALSE(Value(r.FindCustomerByEmail(kShopB, *customer.email)).has_value());
    for (const std::string& form : {std::string("c1"), *c.firestoreId, pg})
      CHECK_FALSE(Value(r.FindConversation(kShopB, form)).has_value());
    CHECK(Value(r.ListConversations(Query(kShopB))).empty());
    CHECK(Value(r.ListMessages(Messages(kShopB, "c1"))).empty());
    CHECK_FALSE(Value(r.GetMessage(kShopB, "c1", "m1")).has_value());
    CHECK_FALSE(Value(r.GetMessage(kShopB, "c1", std::to_string(m.seq))).has_value());
    CHECK(Value(r.ListTagCatalog(kShopB)).empty());
    CHECK(Value(r.ListNotes(kShopB, "c1")).empty());
    CHECK_FALSE(Value(r.GetNote(kShopB, "c1", "n1")).has_value());
    CHECK(Value(r.ListAttributes(kShopB, "c1")).empty());
    CHECK_FALSE(Value(r.GetAttribute(kShopB, "c1", "a1")).has_value());
    CHECK_FALSE(Value(r.FindAttributeByName(kShopB, "c1", "plan")).has_value());
    CHECK(Value(r.ListBrowsedPages(kShopB, "c1", 0, 50)).empty());
    CHECK_FALSE(Value(r.GetSummary(kShopB, "c1")).has_value());
    CHECK(Value(r.ListTyping(kShopB, "c1")).empty());
    CHECK(Value(r.ListEvents(kShopB, 50)).empty());
    return Status::Ok();
  });
  Ok(st);

  auto asB = [](auto record) {
    record.shopId = kShopB;
    return record;
  };
  st = s.Write([&](StoreWriter& w) -> Status {
    CHECK(Value(w.UpdateMember(asB(member))) == false);
    CHECK(Value(w.UpdateCustomer(asB(customer))) == false);
    CHECK(Value(w.UpdateConversation(asB(c))) == false);
    CHECK(Value(w.UpdateMessage(asB(m))) == false);
    CHECK(Value(w.UpdateNote(asB(note))) == false);
    CHECK(Value(w.DeleteNote(kShopB, "c1", "n1")) == false);
    CHECK(Value(w.UpdateAttribute(asB(attr))) == false);
    CHECK(Value(w.DeleteAttribute(kShopB, "c1", "a1")) == false);
    CHECK(Value(w.RevokeApiKey(kShopB, "k1", 5)) == false);
    return Status::Ok();
  });
  Ok(st);

  // Shop A's records are untouched by the attempts.
  auto gotC = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(gotC.has_value());
  CheckSame(*gotC, c);
  CHECK(Get(s, [&](StoreReader& r) { return r.GetNote(kShopA, "c1", "n1"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.GetAttribute(kShopA, "c1", "a1"); }).has_value());
  auto gotKey = Get(s, [&](StoreReader& r) { return r.FindApiKeyByHash(key.keyHash); });
  REQUIRE(gotKey.has_value());
  CHECK_FALSE(gotKey->revokedAt.has_value());
}

}  // namespace
}  // namespace livechat::testing
