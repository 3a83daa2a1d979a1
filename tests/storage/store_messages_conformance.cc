// Store conformance, what a conversation holds (livechat/store/conversations.h):
// messages, notes and attributes. Every Store must pass it.
#include <algorithm>
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

// ------------------------------ messages (MessageReads, MessageWrites)

STORE_TEST("messages: seq order, direction, afterSeq, deleted, notes, limit, GetMessage") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1", "c2"});
  Message m1 = MakeFullMessage(kShopA, "c1", "m1");
  Message m2 = MakeMessage(kShopA, "c1", "m2", 2000);
  m2.isNote = true;
  Message m3 = MakeMessage(kShopA, "c1", "m3", 3000);
  m3.isDeleted = true;
  Message m4 = MakeMessage(kShopA, "c1", "m4", 4000);
  Message m5 = MakeMessage(kShopA, "c1", "m5", 5000);
  Message other = MakeMessage(kShopA, "c2", "m-other", 1500);
  Put(s, [&](StoreWriter& w) -> Status {
    for (Message* m : {&m1, &m2, &m3, &other, &m4, &m5}) LC_RETURN_IF_ERROR(w.InsertMessage(*m));
    return Status::Ok();
  });
  CHECK(m1.seq > 0);
  CHECK(m2.seq > m1.seq);
  CHECK(m3.seq > m2.seq);
  CHECK(m4.seq > other.seq);
  CHECK(m5.seq > m4.seq);

  MessageQuery q = Messages(kShopA, "c1");
  CHECK(MessageIds(s, q) == Ids_{"m1", "m2", "m4", "m5"});
  q.includeDeleted = true;
  CHECK(MessageIds(s, q) == Ids_{"m1", "m2", "m3", "m4", "m5"});
  q.includeDeleted = false;
  q.includeNotes = false;
  CHECK(MessageIds(s, q) == Ids_{"m1", "m4", "m5"});
  q.includeNotes = true;
  q.descending = true;
  CHECK(MessageIds(s, q) == Ids_{"m5", "m4", "m2", "m1"});
  q.afterSeq = m4.seq;
  CHECK(MessageIds(s, q) == Ids_{"m2", "m1"});
  q.includeDeleted = true;
  CHECK(MessageIds(s, q) == Ids_{"m3", "m2", "m1"});
  q.descending = false;
  q.includeDeleted = false;
  q.afterSeq = m2.seq;
  CHECK(MessageIds(s, q) == Ids_{"m4", "m5"});
  q.afterSeq = m5.seq;
  CHECK(MessageIds(s, q).empty());
  q.afterSeq.reset();
  q.limit = 2;
  CHECK(MessageIds(s, q) == Ids_{"m1", "m2"});
  q.descending = true;
  CHECK(MessageIds(s, q) == Ids_{"m5", "m4"});
  CHECK(MessageIds(s, Messages(kShopA, "c2")) == Ids_{"m-other"});
  CHECK(MessageIds(s, Messages(kShopB, "c1")).empty());

  // Every field round-trips, through the list and through GetMessage.
  auto listed = Get(s, [&](StoreReader& r) { return r.ListMessages(Messages(kShopA, "c1")); });
  REQUIRE_FALSE(listed.empty());
  CheckSame(listed[0], m1);
  auto got = Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, m1);

  got = Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m3"); });
  REQUIRE(got.has_value());
  CHECK(got->isDeleted);
  got = Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", std::to_string(m3.seq)); });
  REQUIRE(got.has_value());
  CHECK(got->id == "m3");
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c2", "m1"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c2", std::to_string(m1.seq)); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopB, "c1", "m1"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "999999"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m9"); }).has_value());
}

STORE_TEST("messages: UpdateMessage rewrites the record within its shop") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1"});
  Message m = MakeMessage(kShopA, "c1", "m1", 1000);
  Put(s, [&](StoreWriter& w) { return w.InsertMessage(m); });

  Message u = MakeFullMessage(kShopA, "c1", "m1");
  u.seq = m.seq;
  u.isDeleted = true;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateMessage(u); }) == true);
  auto got = Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, u);
  CHECK(MessageIds(s, Messages(kShopA, "c1")).empty());

  Message foreign = u;
  foreign.shopId = kShopB;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateMessage(foreign); }) == false);
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertMessage(m); }));
}

STORE_TEST("messages: the versions list is the page's rows and order; every write gives a row a new version") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1", "c2"});
  std::vector<Message> ms;
  for (int i = 0; i < 7; ++i) {
    Message m = MakeMessage(kShopA, "c1", "m" + std::to_string(i), 1000 + i);
    if (i == 2) m.isNote = true;
    if (i == 4) m.isDeleted = true;
    if (i == 5) m.filesJson = R"([{"id":"f1","name":"a.png","size":3,"contentType":"image/png"}])";
    ms.push_back(m);
  }
  Message other = MakeMessage(kShopA, "c2", "m-other", 1500);
  Put(s, [&](StoreWriter& w) -> Status {
    for (Message& m : ms) LC_RETURN_IF_ERROR(w.InsertMessage(m));
    return w.InsertMessage(other);
  });
  auto versions = [&](const MessageQuery& q) {
    auto listed = Get(s, [&](StoreReader& r) { return r.ListMessageVersions(q); });
    REQUIRE(listed.has_value());
    return *listed;
  };
  for (const bool descending : {false, true}) {
    for (const bool notes : {false, true}) {
      CAPTURE(descending);
      CAPTURE(notes);
      MessageQuery q = Messages(kShopA, "c1");
      q.descending = descending;
      q.includeNotes = notes;
      q.limit = 3;
      for (int page = 0; page < 4; ++page) {
        auto rows = Get(s, [&](StoreReader& r) { return r.ListMessages(q); });
        auto vs = versions(q);
        REQUIRE(vs.size() == rows.size());
        for (std::size_t i = 0; i < rows.size(); ++i) {
          CHECK(vs[i].seq == rows[i].seq);
          CHECK(vs[i].plain == (rows[i].id != "m5"));
          CHECK(vs[i].version != 0);
        }
        if (rows.empty()) break;
        q.afterSeq = rows.back().seq;
      }
    }
  }
  auto versionOf = [&](const Message& m) {
    MessageQuery q = Messages(kShopA, m.conversationId);
    q.includeDeleted = true;
    for (const MessageVersion& v : versions(q))
      if (v.seq == m.seq) return v.version;
    FAIL("not listed: " << m.id);
    return std::int64_t{0};
  };
  const std::int64_t before = versionOf(ms[1]);
  const std::int64_t untouched = versionOf(ms[3]);
  Message edited = ms[1];
  edited.text = "edited";
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateMessage(edited); }) == true);
  CHECK(versionOf(ms[1]) != before);
  CHECK(versionOf(ms[3]) == untouched);

  // By seq: the conversation's messages only.
  auto rows = Get(s, [&](StoreReader& r) {
    return r.ListMessagesBySeq(kShopA, "c1", {ms[6].seq, other.seq, ms[1].seq, 987654321});
  });
  std::sort(rows.begin(), rows.end(), [](const Message& a, const Message& b) { return a.seq < b.seq; });
  REQUIRE(rows.size() == 2);
  CheckSame(rows[0], edited);
  CheckSame(rows[1], ms[6]);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListMessagesBySeq(kShopB, "c1", {ms[1].seq}); }).empty());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListMessagesBySeq(kShopA, "c1", {}); }).empty());
}

// ------------------------------ notes, attributes (NoteReads, NoteWrites, AttributeReads, AttributeWrites)

STORE_TEST("notes: insert, list in createdAt order, get, update, delete") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1", "c2"});
  Note n1{"n1", kShopA, "c1", "call back", false, 2000, 2000};
  Note n2{"n2", kShopA, "c1", "refund sent", false, 1000, 1000};
  Note n3{"n3", kShopA, "c2", "other conversation", false, 500, 500};
  Put(s, [&](StoreWriter& w) -> Status {
    for (const Note* n : {&n1, &n2, &n3}) LC_RETURN_IF_ERROR(w.InsertNote(*n));
    return Status::Ok();
  });

  auto list = Get(s, [&](StoreReader& r) { return r.ListNotes(kShopA, "c1"); });
  REQUIRE(list.size() == 2);
  CheckSame(list[0], n2);
  CheckSame(list[1], n1);
  auto got = Get(s, [&](StoreReader& r) { return r.GetNote(kShopA, "c1", "n1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, n1);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetNote(kShopA, "c2", "n1"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetNote(kShopB, "c1", "n1"); }).has_value());

  n1.text = "called";
  n1.isUpdated = true;
  n1.updatedAt = 9000;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateNote(n1); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.GetNote(kShopA, "c1", "n1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, n1);
  Note foreign = n1;
  foreign.shopId = kShopB;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateNote(foreign); }) == false);

  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteNote(kShopB, "c1", "n1"); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteNote(kShopA, "c2", "n1"); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteNote(kShopA, "c1", "n1"); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteNote(kShopA, "c1", "n1"); }) == false);
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListNotes(kShopA, "c1"); })) == Ids_{"n2"});
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListNotes(kShopA, "c2"); })) == Ids_{"n3"});
}

STORE_TEST("attributes: insert, list, get, find by name, update, delete") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1", "c2"});
  Attribute a1{"a1", kShopA, "c1", "plan", "gold", 1000, 1000};
  Attribute a2{"a2", kShopA, "c1", "order", "#1001", 2000, 2500};
  Attribute a3{"a3", kShopA, "c2", "plan", "silver", 500, 500};
  Put(s, [&](StoreWriter& w) -> Status {
    for (const Attribute* a : {&a2, &a1, &a3}) LC_RETURN_IF_ERROR(w.InsertAttribute(*a));
    return Status::Ok();
  });

  auto list = Get(s, [&](StoreReader& r) { return r.ListAttributes(kShopA, "c1"); });
  REQUIRE(list.size() == 2);
  CheckSame(list[0], a1);
  CheckSame(list[1], a2);
  auto got = Get(s, [&](StoreReader& r) { return r.GetAttribute(kShopA, "c1", "a2"); });
  REQUIRE(got.has_value());
  CheckSame(*got, a2);
  got = Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c1", "plan"); });
  REQUIRE(got.has_value());
  CheckSame(*got, a1);
  got = Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c2", "plan"); });
  REQUIRE(got.has_value());
  CheckSame(*got, a3);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c1", "missing"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopB, "c1", "plan"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetAttribute(kShopA, "c2", "a1"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetAttribute(kShopB, "c1", "a1"); }).has_value());

  a1.name = "tier";
  a1.value = "platinum";
  a1.updatedAt = 7000;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateAttribute(a1); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c1", "tier"); });
  REQUIRE(got.has_value());
  CheckSame(*got, a1);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c1", "plan"); }).has_value());
  Attribute foreign = a1;
  foreign.shopId = kShopB;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateAttribute(foreign); }) == false);

  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteAttribute(kShopB, "c1", "a1"); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteAttribute(kShopA, "c1", "a1"); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteAttribute(kShopA, "c1", "a1"); }) == false);
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListAttributes(kShopA, "c1"); })) == Ids_{"a2"});
}

}  // namespace
}  // namespace livechat::testing
