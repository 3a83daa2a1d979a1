// livechat's GraphQL engine: a general, spec-compliant executor for
// query-only schemas, independent of any particular schema.
//
//   graphql/value.h   Value (what resolvers return and arguments arrive as)
//   graphql/schema.h  SchemaBuilder, type definitions, resolvers
//   graphql/engine.h  Parse, Validate, Prepare, Execute, PrintSchema
//
// docs/graphql.md describes the engine and how a schema is bound to it.
#pragma once

#include "livechat/graphql/engine.h"
#include "livechat/graphql/schema.h"
#include "livechat/graphql/value.h"
