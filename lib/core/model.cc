#include "livechat/model.h"

#include <algorithm>
#include <array>

namespace livechat {
namespace {

struct PermissionInfo {
  Permission bit;
  std::string_view slug;
  std::string_view display;
};

constexpr std::array<PermissionInfo, 8> kPermissions{{
    {kPermReadConversations, "read_conversations", "Read conversations"},
    {kPermManageConversations, "manage_conversations", "Manage conversations"},
    {kPermReadCustomers, "read_customers", "Read customers"},
    {kPermReadSetupStatus, "read_setup_status", "Read setup status"},
    {kPermReadSettings, "read_settings", "Read settings"},
    {kPermManageWidgetSettings, "manage_widget_settings", "Manage widget settings"},
    {kPermManageAllSettings, "manage_all_settings", "Manage all settings"},
    {kPermManageKnowledge, "manage_knowledge", "Manage knowledge and training"},
}};

}  // namespace

std::string_view PlanName(Plan p) {
  const auto i = static_cast<std::size_t>(p);
  return i < kPlanNames.size() ? kPlanNames[i] : kPlanNames[0];
}

std::optional<Plan> ParsePlan(std::string_view s) {
  for (std::size_t i = 0; i < kPlanNames.size(); ++i)
    if (kPlanNames[i] == s) return static_cast<Plan>(i);
  return std::nullopt;
}

std::vector<std::string_view> PermissionSlugs() {
  std::vector<std::string_view> out;
  for (const auto& p : kPermissions) out.push_back(p.slug);
  return out;
}

std::optional<Permission> ParsePermissionSlug(std::string_view slug) {
  for (const auto& p : kPermissions)
    if (p.slug == slug) return p.bit;
  return std::nullopt;
}

std::string_view PermissionSlug(Permission p) {
  for (const auto& info : kPermissions)
    if (info.bit == p) return info.slug;
  return "";
}

std::string_view PermissionDisplayName(Permission p) {
  for (const auto& info : kPermissions)
    if (info.bit == p) return info.display;
  return "";
}

std::vector<std::string> PermissionSlugs(std::uint32_t mask) {
  std::vector<std::string> out;
  for (const auto& p : kPermissions)
    if (mask & p.bit) out.emplace_back(p.slug);
  return out;
}

std::string MemberFullName(const Member& m) {
  std::string full = m.firstName.value_or("");
  if (m.lastName && !m.lastName->empty()) {
    if (!full.empty()) full += ' ';
    full += *m.lastName;
  }
  return full.empty() ? m.email : full;
}

std::string PhoneKey(std::string_view phone) {
  constexpr std::size_t kMinDigits = 7, kMaxDigits = 15;
  std::size_t i = phone.find_first_not_of(' ');
  const bool plus = i != std::string_view::npos && phone[i] == '+';
  if (plus) ++i;
  std::string digits;
  for (; i < phone.size(); ++i) {
    const char ch = phone[i];
    if (ch >= '0' && ch <= '9') {
      digits += ch;
    } else if (ch != ' ' && ch != '-' && ch != '(' && ch != ')' && ch != '.') {
      return "";
    }
  }
  if (!plus && digits.size() > 2 && digits[0] == '0' && digits[1] == '0') digits.erase(0, 2);
  if (digits.size() < kMinDigits || digits.size() > kMaxDigits) return "";
  return digits;
}

bool IsKnownChannel(std::string_view c) { return std::find(kChannels.begin(), kChannels.end(), c) != kChannels.end(); }

bool IsIntegratedChannel(std::string_view c) {
  return std::find(kIntegratedChannels.begin(), kIntegratedChannels.end(), c) != kIntegratedChannels.end();
}

std::string JoinNames(std::span<const std::string_view> names, std::string_view separator) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += separator;
    out += n;
  }
  return out;
}

std::string UnknownChannelMessage() { return "channel must be one of " + JoinNames(kChannels, ", "); }

std::string UnknownIntegratedChannelMessage() {
  return "channel must be one of " + JoinNames(kIntegratedChannels, ", ");
}

}  // namespace livechat
