// The web app's files, served from one directory (share/raw/dashboard, see
// clients/lib/assets.h) and nowhere else: `/` and `/index.html` are
// index.html; `/assets/NAME` is assets/NAME where NAME is one plain file
// name (letters, digits, '.', '_', '-'; not starting with '.'), so no
// request reaches outside the directory (no '/', no "..", no
// percent-decoding: the path is matched as sent). Only regular files are
// served, with the content type of their extension; anything else is 404.
// Cacheable: index.html must be revalidated (no-cache), assets may be kept
// for an hour. The files are read on each request (they are small).
#pragma once

#include <string>
#include <string_view>

#include "clients/web/http_message.h"

namespace raw::dashboard {

// "text/html; charset=utf-8" for .html, ... "application/octet-stream"
// for an unknown extension.
std::string ContentTypeFor(std::string_view file_name);

// True for a name `/assets/NAME` may serve (see above).
bool IsPlainAssetName(std::string_view name);

class StaticFiles {
 public:
  explicit StaticFiles(std::string root) : root_(std::move(root)) {}
  // The answer to GET `path` (the request path, without the query).
  web::Response Serve(const std::string& path) const;

 private:
  std::string root_;
};

}  // namespace raw::dashboard
