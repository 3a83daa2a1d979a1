// Rules the core owns for every surface (issue 15): the adapters and
// livechatctl call these instead of re-stating them.
#include <doctest/doctest.h>

#include "core/catalog_format.h"
#include "livechat/model.h"

namespace livechat {

TEST_CASE("kPermAll is every permission there is, exactly") {
  const std::vector<std::string> all = PermissionSlugs(kPermAll);
  CHECK(all == std::vector<std::string>{"read_conversations", "manage_conversations", "read_customers",
                                        "read_setup_status", "read_settings", "manage_widget_settings",
                                        "manage_all_settings", "manage_knowledge"});
  std::uint32_t parsed = 0;
  for (const auto& slug : all) parsed |= *ParsePermissionSlug(slug);
  CHECK(parsed == kPermAll);
}

TEST_CASE("member role and channel rules with their messages") {
  CHECK(IsMemberRole("admin"));
  CHECK(IsMemberRole("member"));
  CHECK_FALSE(IsMemberRole("owner"));
  CHECK_FALSE(IsMemberRole(""));
  CHECK(kMemberRoleMessage == "role must be admin or member");
  CHECK(IsKnownChannel("playground"));
  CHECK_FALSE(IsKnownChannel("sms"));
  CHECK(UnknownChannelMessage() == "channel must be one of online_store, email, facebook, instagram, whatsapp, playground");
}

TEST_CASE("one channel list: the checks, the messages and the help all come from it") {
  for (std::string_view c : kChannels) CHECK(IsKnownChannel(c));
  CHECK_FALSE(IsKnownChannel("Email"));
  CHECK_FALSE(IsKnownChannel(""));
  // The integrated channels are channels, and the widget and playground are not among them.
  for (std::string_view c : kIntegratedChannels) {
    CHECK(IsKnownChannel(c));
    CHECK(IsIntegratedChannel(c));
  }
  CHECK_FALSE(IsIntegratedChannel("online_store"));
  CHECK_FALSE(IsIntegratedChannel("playground"));
  CHECK_FALSE(IsIntegratedChannel("sms"));
  CHECK(UnknownIntegratedChannelMessage() == "channel must be one of email, facebook, instagram, whatsapp");
  CHECK(JoinNames(kIntegratedChannels, "|") == "email|facebook|instagram|whatsapp");
  CHECK(JoinNames({}, ", ").empty());
}

TEST_CASE("every AI setting flag is read from its section and key") {
  CHECK(std::size(kAiSettingFlags) == 7);
  for (const auto& f : kAiSettingFlags) {
    CAPTURE(f.key);
    const AiSettings base;
    const bool flipped = !(base.*f.field);
    const std::string json = std::string("{\"") + f.section + "\":{\"" + f.key + "\":" + (flipped ? "true" : "false") + "}}";
    auto parsed = internal::ParseAiSettings(json, base);
    REQUIRE(parsed.ok());
    CHECK((*parsed).*f.field == flipped);
  }
}

}  // namespace livechat
