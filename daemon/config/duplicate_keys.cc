#include "daemon/config/duplicate_keys.h"

#include <cstddef>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/utf8.h"
#include "daemon/config/field_reader.h"

namespace raw::config {
namespace {

// Duplicate keys reported before the rest are summed up in one problem: a
// file of a few hundred kilobytes can repeat a key tens of thousands of
// times, and each problem names its path.
constexpr size_t kMaxReported = 20;
// A key longer than this is shortened in a problem's path.
constexpr size_t kMaxKeyBytes = 64;

// SAX handler for nlohmann's parser: tracks where the value being read is
// (each open object's or array's current key or index; a path is built only
// for a problem, so memory stays linear in the text however deep and long
// its keys) and the keys seen in each open object.
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
      if (++found_ <= kMaxReported) {
        problems_.push_back({JoinPath(PathTo(stack_.size() - 1), Shortened(key)),
                             "duplicate key (each key may appear once per object; a later value "
                             "would replace the earlier one)"});
      }
    }
    top.key = key;
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) {
    return false;
  }

  // Adds the problem that sums up those not reported one by one.
  void Finish() {
    if (found_ <= kMaxReported) return;
    problems_.push_back({"", absl::StrCat(found_ - kMaxReported,
                                          " more duplicate keys (each key may appear once per "
                                          "object)")});
  }

 private:
  struct Frame {
    bool object = false;
    std::set<std::string> keys;  // objects: keys seen so far
    std::string key;             // objects: key of the value being read
    size_t index = 0;            // arrays: index of the value being read
  };

  static std::string Shortened(const std::string& key) {
    if (key.size() <= kMaxKeyBytes) return key;
    return absl::StrCat(key.substr(0, Utf8Floor(key, kMaxKeyBytes)), "...");
  }

  // The path of the value being read in each of the first `frames` frames.
  std::string PathTo(size_t frames) const {
    std::string path;
    for (size_t i = 0; i < frames; ++i) {
      const Frame& f = stack_[i];
      path = f.object ? JoinPath(path, Shortened(f.key)) : IndexPath(path, f.index);
    }
    return path;
  }

  bool Value() {
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().index;
    return true;
  }

  bool Open(bool object) {
    Frame frame;
    frame.object = object;
    stack_.push_back(std::move(frame));
    return true;
  }

  bool Close() {
    stack_.pop_back();
    return Value();
  }

  std::vector<ConfigProblem>& problems_;
  std::vector<Frame> stack_;
  size_t found_ = 0;
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
  finder.Finish();
  return problems;
}

}  // namespace raw::config
