// Uploaded files' records (migration 9). The bytes are in the BlobStore.
#include "storage/postgres/pg_queries.h"

namespace livechat::pg {
namespace {

constexpr const char* kFileColumns =
    "SELECT shop_id, id, kind, name, size, content_type, sha256, created_at, conversation_id, message_id, "
    "uploader_type, uploader_id FROM files ";

FileRecord ReadFile(const Statement& st) {
  FileRecord f;
  f.shopId = st.Text(0);
  f.id = st.Text(1);
  f.kind = st.Text(2);
  f.name = st.Text(3);
  f.size = st.Int(4);
  f.contentType = st.Text(5);
  f.sha256 = st.Text(6);
  f.createdAt = st.Int(7);
  f.conversationId = st.OptText(8);
  f.messageId = st.OptText(9);
  f.uploaderType = st.Text(10);
  f.uploaderId = st.OptText(11);
  return f;
}

}  // namespace

Result<std::optional<FileRecord>> PgQueries::GetFile(const std::string& shopId, const std::string& fileId) {
  static const std::string sql = std::string(kFileColumns) + "WHERE shop_id = ?1 AND id = ?2";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql.c_str()));
  st.Add(shopId).Add(fileId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<FileRecord>();
  return std::optional<FileRecord>(ReadFile(st));
}

Result<std::optional<FileRecord>> PgQueries::FindFileById(const std::string& fileId) {
  static const std::string sql = std::string(kFileColumns) + "WHERE id = ?1";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql.c_str()));
  st.Add(fileId);
  LC_ASSIGN_OR_RETURN(bool row, st.Step());
  if (!row) return std::optional<FileRecord>();
  return std::optional<FileRecord>(ReadFile(st));
}

Result<std::vector<FileRecord>> PgQueries::ListFiles(const std::string& shopId, const std::string& kind) {
  static const std::string sql = std::string(kFileColumns) + "WHERE shop_id = ?1 AND kind = ?2 ORDER BY created_at, id";
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare(sql.c_str()));
  st.Add(shopId).Add(kind);
  std::vector<FileRecord> out;
  for (;;) {
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    if (!row) break;
    out.push_back(ReadFile(st));
  }
  return out;
}

Status PgQueries::InsertFile(const FileRecord& f) {
  LC_ASSIGN_OR_RETURN(Statement st,
                      conn_.Prepare("INSERT INTO files (shop_id, id, kind, name, size, content_type, sha256, "
                                    "created_at, conversation_id, message_id, uploader_type, uploader_id) "
                                    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"));
  st.Add(f.shopId).Add(f.id).Add(f.kind).Add(f.name).Add(f.size).Add(f.contentType).Add(f.sha256).Add(f.createdAt)
      .Add(f.conversationId).Add(f.messageId).Add(f.uploaderType).Add(f.uploaderId);
  return st.Run();
}

Result<bool> PgQueries::DeleteFile(const std::string& shopId, const std::string& fileId) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM files WHERE shop_id = ?1 AND id = ?2"));
  st.Add(shopId).Add(fileId);
  return RunChanged(st);
}

Result<std::int64_t> PgQueries::DeleteFilesOfKind(const std::string& shopId, const std::string& kind) {
  LC_ASSIGN_OR_RETURN(Statement st, conn_.Prepare("DELETE FROM files WHERE shop_id = ?1 AND kind = ?2"));
  st.Add(shopId).Add(kind);
  LC_RETURN_IF_ERROR(st.Run());
  return static_cast<std::int64_t>(conn_.Changes());
}

}  // namespace livechat::pg
