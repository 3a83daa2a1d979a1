// Runs a store's transaction function so that no exception leaves the
// library: one escaping `fn` becomes kInternal naming `where`, and the
// caller still ends its transaction. Used by both stores' Read and Write.
#pragma once

#include <exception>
#include <string>

#include "livechat/result.h"

namespace livechat::storage {

template <typename Fn, typename Arg>
Status InvokeGuarded(const Fn& fn, Arg& arg, const char* where) {
  try {
    return fn(arg);
  } catch (const std::exception& e) {
    return Error{ErrorCode::kInternal, std::string("exception in ") + where + ": " + e.what()};
  } catch (...) {
    return Error{ErrorCode::kInternal, std::string("exception in ") + where};
  }
}

}  // namespace livechat::storage
