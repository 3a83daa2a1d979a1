// A parsed JSON document as a graphql::Value, for the adapters that parse
// the request themselves. Private to lib/: it exposes RapidJSON.
#pragma once

#include <rapidjson/document.h>

#include "livechat/graphql/value.h"

namespace livechat::graphql {

// At most `depthLeft` arrays and objects nested, `v` itself included;
// deeper: INVALID_PARAMS "JSON is nested too deeply" (the conversion
// recurses, so the bound keeps a 1 MiB body of '[' from exhausting the
// stack). Numbers as JSON.parse reads them; a repeated key keeps its first
// position and its last value.
Result<Value> FromRapidJson(const rapidjson::Value& v, int depthLeft);

}  // namespace livechat::graphql
