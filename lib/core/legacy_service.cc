// Conversations from the older chat system: import (as unmigrated records of
// the older datastore) and migration into the newer one (spec rule 5).
#include <algorithm>

#include <fmt/format.h>

#include "core/legacy_format.h"
#include "core/service_internal.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

namespace {

void AddUnique(std::vector<std::string>& list, const std::string& v) {
  if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
}

Message ToMessage(const LegacyMessage& in, const Conversation& c, std::string id, bool first) {
  Message m;
  m.id = std::move(id);
  m.conversationId = c.id;
  m.shopId = c.shopId;
  m.text = in.text;
  m.senderName = in.senderName;
  m.senderType = in.senderType;
  m.isFirst = first;
  m.isNote = in.isNote;
  // The same flags a live message of that sender carries (SendMessage).
  m.isAdmin = in.senderType != "customer";
  m.isBot = in.senderType == "bot";
  m.isAutomated = in.senderType == "bot" || in.senderType == "system";
  m.createdAt = in.createdAt;
  return m;
}

// The contact of an imported conversation: the store's contact with that
// email (the same email is the same contact, as for live messages), else a
// new one dated from the conversation.
Result<Customer> ContactFor(StoreWriter& w, Random& random, const std::string& shopId, const LegacyConversation& in,
                            Millis lastAt, bool* created) {
  std::optional<Customer> found;
  if (in.customerEmail) {
    LC_ASSIGN_OR_RETURN(found, w.FindCustomerByEmail(shopId, *in.customerEmail));
  }
  *created = !found;
  Customer c;
  if (found) {
    c = std::move(*found);
  } else {
    c = NewContact(random, shopId, in.customerName, in.customerEmail, in.customerPhone, in.createdAt);
  }
  AddUnique(c.channels, in.channel);
  if (!c.phone && in.customerPhone) c.phone = in.customerPhone;
  if (!c.name && in.customerName) c.name = in.customerName;
  if (!c.lastChatAt || *c.lastChatAt < lastAt) c.lastChatAt = lastAt;
  c.createdAt = std::min(c.createdAt, in.createdAt);
  if (*created) {
    LC_RETURN_IF_ERROR(w.InsertCustomer(c));
  } else {
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateCustomer(c));
    if (!ok) return NotFound("customer");
  }
  return c;
}

}  // namespace

Result<LegacyImportResult> LegacyService::ImportLegacy(const Principal& p, std::string_view json) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  LegacyLimits legacyLimits;
  legacyLimits.messageTextMax = ctx_.limits().messageTextMax;
  legacyLimits.tagMax = ctx_.limits().tagMax;
  LC_ASSIGN_OR_RETURN(auto conversations, ParseLegacyExport(json, legacyLimits));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<LegacyImportResult>(ctx_.store(), [&](StoreWriter& w) -> Result<LegacyImportResult> {
    LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(p.shopId));
    if (!shop) return NotFound("store");
    LegacyImportResult out;
    for (std::size_t i = 0; i < conversations.size(); ++i) {
      const LegacyConversation& in = conversations[i];
      LC_ASSIGN_OR_RETURN(auto existing, w.FindConversation(p.shopId, in.firestoreId));
      if (existing) {
        if (existing->firestoreId != in.firestoreId)
          return Invalid(fmt::format("conversations[{}].id: \"{}\" is already the id of another conversation", i,
                                     in.firestoreId));
        ++out.skipped;
        continue;
      }
      const Millis lastAt = in.messages.empty() ? in.createdAt : in.messages.back().createdAt;
      bool created = false;
      LC_ASSIGN_OR_RETURN(Customer customer, ContactFor(w, *ctx_.random, p.shopId, in, lastAt, &created));
      if (created) ++out.contactsCreated;

      Conversation c;
      c.id = ctx_.random->Uuid();
      c.firestoreId = in.firestoreId;
      c.inNewDatastore = false;
      c.shopId = p.shopId;
      c.sessionId = in.sessionId;
      c.customerUuid = customer.id;
      // The name and email the conversation was held under, as for live ones.
      c.customerName = in.customerName ? in.customerName : customer.name;
      c.customerEmail = in.customerEmail ? in.customerEmail : customer.email;
      c.customerType = customer.type;
      c.status = in.status;
      c.channel = in.channel;
      c.channels = {in.channel};
      c.tags = in.tags;
      c.isRead = true;  // history: nothing in it is waiting for an agent
      c.hasFirstMsg = !in.messages.empty();
      c.messageCount = static_cast<std::int64_t>(in.messages.size());
      c.createdAt = in.createdAt;
      c.lastActive = lastAt;
      c.updatedAt = now;
      for (const LegacyMessage& m : in.messages) {
        if (!m.isNote) c.lastMessage = LastMessage{m.text, m.senderType, m.createdAt};
        if (m.senderType == "customer") c.lastCustomerMessageAt = m.createdAt;
        if (m.senderType == "bot") c.hasChatBot = true;
      }
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
      for (std::size_t k = 0; k < in.messages.size(); ++k) {
        Message m = ToMessage(in.messages[k], c, ctx_.random->Uuid(), k == 0);
        LC_RETURN_IF_ERROR(w.InsertMessage(m));
      }
      ++out.imported;
      out.messages += static_cast<std::int64_t>(in.messages.size());
    }
    return out;
  });
}

Result<LegacyMigrationResult> LegacyService::MigrateLegacy(const Principal& p, std::optional<std::int64_t> limit,
                                                         int batch) {
  LC_RETURN_IF_ERROR(RequireSystem(p));
  if (limit && *limit < 1) return Invalid("limit must be at least 1");
  if (batch < 1) return Invalid("batch must be at least 1");
  if (auto shop = directory_.GetShop(p.shopId); !shop.ok()) return shop.take_error();
  const Millis now = ctx_.clock->NowMillis();
  LegacyMigrationResult out;
  while (!limit || out.migrated < *limit) {
    const int take = static_cast<int>(limit ? std::min<std::int64_t>(batch, *limit - out.migrated) : batch);
    // Migrated records leave the legacy set, so every batch starts from the
    // front; a crash between batches loses nothing and a re-run continues.
    LC_ASSIGN_OR_RETURN(std::int64_t moved, WriteValue<std::int64_t>(ctx_.store(), [&](StoreWriter& w) -> Result<std::int64_t> {
      LC_ASSIGN_OR_RETURN(auto legacy, w.ListLegacyConversations(p.shopId, take));
      for (Conversation& c : legacy) {
        c.inNewDatastore = true;  // the store gives it its pgConvoId
        c.updatedAt = now;
        LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c));
        if (!ok) return NotFound("conversation");
      }
      return static_cast<std::int64_t>(legacy.size());
    }));
    out.migrated += moved;
    if (moved < take) break;
  }
  LC_ASSIGN_OR_RETURN(out.remaining, ReadValue<std::int64_t>(ctx_.store(), [&](StoreReader& r) {
                        return r.CountLegacyConversations(p.shopId);
                      }));
  return out;
}

}  // namespace livechat
