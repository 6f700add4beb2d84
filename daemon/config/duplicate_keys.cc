#include "daemon/config/duplicate_keys.h"

#include <cstddef>
#include <set>
#include <string>

#include "common/json.h"
#include "daemon/config/field_reader.h"

namespace raw::config {
namespace {

// SAX handler for nlohmann's parser: tracks the path of the value being read
// and the keys seen in each open object.
class DuplicateKeyFinder {
 public:
  explicit DuplicateKeyFinder(std::vector<ConfigProblem>& problems) : problems_(problems) {}

  bool null() { return Value(); }
  bool boolean(bool) { return Value(); }
  bool number_integer(Json::number_integer_t) { return Value(); }
  bool number_unsigned(Json::number_unsigned_t) { return Value(); }
  bool number_float(Json::number_float_t, const Json::string_t&) { return Value(); }
  bool string(Json::string_t&) { return Value(); }
  bool binary(Json::binary_t&) { return Value(); }

  bool start_object(std::size_t) { return Open(/*object=*/true); }
  bool end_object() { return Close(); }
  bool start_array(std::size_t) { return Open(/*object=*/false); }
  bool end_array() { return Close(); }

  bool key(Json::string_t& key) {
    Frame& top = stack_.back();
    if (!top.keys.insert(key).second) {
      problems_.push_back({JoinPath(top.path, key),
                           "duplicate key (each key may appear once per object; a later value "
                           "would replace the earlier one)"});
    }
    top.key = key;
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

 private:
  struct Frame {
    bool object = false;
    std::string path;
    std::set<std::string> keys;  // objects: keys seen so far
    std::string key;             // objects: key of the value being read
    size_t index = 0;            // arrays: index of the value being read
  };

  std::string CurrentPath() const {
    if (stack_.empty()) return "";
    const Frame& top = stack_.back();
    return top.object ? JoinPath(top.path, top.key) : IndexPath(top.path, top.index);
  }

  bool Value() {
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().index;
    return true;
  }

  bool Open(bool object) {
    Frame frame;
    frame.object = object;
    frame.path = CurrentPath();
    stack_.push_back(std::move(frame));
    return true;
  }

  bool Close() {
    stack_.pop_back();
    return Value();
  }

  std::vector<ConfigProblem>& problems_;
  std::vector<Frame> stack_;
};

}  // namespace

std::vector<ConfigProblem> FindDuplicateKeys(std::string_view text) {
  std::vector<ConfigProblem> problems;
  DuplicateKeyFinder finder(problems);
  try {
    Json::sax_parse(text, &finder, Json::input_format_t::json, /*strict=*/true,
                    /*ignore_comments=*/true);
  } catch (const std::exception&) {
    // The handler never throws and reports syntax errors by returning false;
    // anything else is left to the DOM parse, which reports it properly.
  }
  return problems;
}

}  // namespace raw::config
