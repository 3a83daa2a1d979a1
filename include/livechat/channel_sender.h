// Delivery of agent replies to the channel a conversation lives on (email,
// Messenger, Instagram, WhatsApp). The widget channel (online_store) needs no
// sender: the storefront reads messages itself.
#pragma once

#include "livechat/model.h"
#include "livechat/result.h"

namespace livechat {

// Thread-safe. Called after the message is committed; a failure is logged
// and does not undo the message (the deliverability rules that decide 409
// CHANNEL_UNAVAILABLE are checked by ChatService before the write). A send
// through the REST API may call it on the store's writer thread
// (ConversationService::SendMessageAsync): queue the delivery and return,
// never wait on the network here.
class ChannelSender {
 public:
  virtual ~ChannelSender() = default;
  virtual Status Deliver(const Conversation& conversation, const Customer* customer, const Message& message) = 0;
};

// Accepts every delivery and does nothing (no channel connectors configured).
ChannelSender* NullChannelSender();

}  // namespace livechat
