// AnnotationService: what the team adds to a conversation: tags, internal
// notes, attributes (annotation_service.cc).
// Thread-safe. No exception leaves it: every call returns Result/Status with
// the spec's codes. Every call is scoped to principal.shopId; a record of
// another store is NOT_FOUND, exactly as a missing one.
#pragma once

#include "livechat/services/common.h"

namespace livechat {

class AnnotationService {
 public:
  explicit AnnotationService(internal::ServiceContext& ctx);
  AnnotationService(const AnnotationService&) = delete;
  AnnotationService& operator=(const AnnotationService&) = delete;

  // ---- Tags, notes, attributes ----
  Result<std::vector<TagCount>> ListTagCatalog(const Principal& p);
  Result<std::vector<std::string>> AddTags(const Principal& p, const std::string& id, const std::vector<std::string>& tags);
  Result<std::vector<std::string>> RemoveTag(const Principal& p, const std::string& id, const std::string& tag);
  Result<std::vector<Note>> ListNotes(const Principal& p, const std::string& id);
  Result<Note> CreateNote(const Principal& p, const std::string& id, const std::optional<std::string>& text);
  Result<Note> UpdateNote(const Principal& p, const std::string& id, const std::string& noteId,
                          const std::optional<std::string>& text);
  Status DeleteNote(const Principal& p, const std::string& id, const std::string& noteId);
  Result<std::vector<Attribute>> ListAttributes(const Principal& p, const std::string& id);
  // Upsert by name. `created` tells the caller whether a new row was made.
  Result<Attribute> UpsertAttribute(const Principal& p, const std::string& id, const std::optional<std::string>& name,
                                    const std::optional<std::string>& value, bool* created = nullptr);
  // Either field may be absent (left unchanged); a new name must not clash.
  Result<Attribute> UpdateAttribute(const Principal& p, const std::string& id, const std::string& attributeId,
                                    const std::optional<std::string>& name, const std::optional<std::string>& value);
  Status DeleteAttribute(const Principal& p, const std::string& id, const std::string& attributeId);
  // The tool server's update_tags: replaces the whole list. Each tag is cut
  // to 50 characters, blanks and repeats dropped, at most 100 kept.
  Result<std::vector<std::string>> ReplaceTags(const Principal& p, const std::string& id,
                                               const std::vector<std::string>& tags);

 private:
  internal::ServiceContext& ctx_;
};

}  // namespace livechat
