#include "daemon/tools/schema_refs.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/tools/schema_keywords.h"

namespace raw::tools::schema_refs {
namespace {

// Far more subschemas than a tool's schema has; past it the check gives up
// (and says so) rather than spend unbounded memory on a hostile schema.
constexpr size_t kMaxNodes = size_t{1} << 18;
constexpr size_t kMaxErrors = 20;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void ReplaceAll(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

// One reference token decoded as valijson decodes it: "~1", then "~0",
// then %-escapes. Nullopt where valijson would fail.
std::optional<std::string> DecodeToken(std::string token) {
  ReplaceAll(token, "~1", "/");
  ReplaceAll(token, "~0", "~");
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '%') {
      out += token[i];
      continue;
    }
    int high = i + 1 < token.size() ? HexDigit(token[i + 1]) : -1;
    int low = i + 2 < token.size() ? HexDigit(token[i + 2]) : -1;
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

// The value `pointer` names within `document`, as valijson finds it
// (trailing and empty tokens are skipped), or null.
const Json* Resolve(const Json& document, std::string pointer) {
  pointer.erase(pointer.find_last_not_of('/') + 1);
  const Json* node = &document;
  size_t at = 0;
  while (at < pointer.size()) {
    if (pointer[at] != '/') return nullptr;
    size_t end = pointer.find('/', at + 1);
    if (end == std::string::npos) end = pointer.size();
    std::optional<std::string> token = DecodeToken(pointer.substr(at + 1, end - at - 1));
    at = end;
    if (!token) return nullptr;
    if (token->empty()) continue;
    if (node->is_array()) {
      if (token->find_first_not_of("0123456789") != std::string::npos || token->size() > 9) {
        return nullptr;
      }
      size_t index = std::stoul(*token);
      if (index >= node->size()) return nullptr;
      node = &(*node)[index];
    } else if (node->is_object()) {
      auto it = node->find(*token);
      if (it == node->end()) return nullptr;
      node = &*it;
    } else {
      return nullptr;
    }
  }
  return node;
}

std::string Shown(const std::string& pointer) { return pointer.empty() ? "/" : pointer; }

struct Edge {
  size_t to;
  bool descends;  // moves into a part of the value
};

// A subschema as valijson parses it: a value within a document (the
// schema, or one a "$ref" fetches, whose references resolve within it).
struct Node {
  const Json* document;
  const Json* value;
  std::string where;             // its location, for messages
  const std::string* reference;  // the "$ref" of a reference node, else null
  std::vector<Edge> edges;
};

class Graph {
 public:
  Graph(const Json& schema, const DocumentFinder& find_document)
      : schema_(schema), find_document_(find_document) {}

  std::vector<std::string> Check() {
    Intern(&schema_, &schema_, "");
    for (size_t i = 0; i < nodes_.size() && !gave_up_; ++i) Expand(i);
    if (gave_up_) {
      errors_.push_back(absl::StrCat("/: more than ", kMaxNodes, " subschemas to check"));
      return errors_;
    }
    FindLoops();
    if (errors_.empty() && LongestParse() > kMaxSchemaNesting) {
      Error("", absl::StrCat("subschemas nest more than ", kMaxSchemaNesting,
                             " deep (counting each way a \"$ref\" leads back into them)"));
    }
    if (errors_.empty()) {
      size_t at = 0;
      if (MostApplications(at) > kMaxApplicationsPerValue) {
        Error(nodes_[at].where,
              absl::StrCat("applies more than ", kMaxApplicationsPerValue,
                           " subschemas to one value (counting each time a \"$ref\" is reached "
                           "again): references that branch this often take too long to check"));
      }
    }
    return errors_;
  }

 private:
  std::optional<size_t> Intern(const Json* document, const Json* value, std::string where) {
    if (!value->is_object()) return std::nullopt;  // a boolean schema, or one valijson rejects
    auto [it, added] = ids_.try_emplace({document, value}, nodes_.size());
    if (added) {
      if (nodes_.size() == kMaxNodes) {
        gave_up_ = true;
        return std::nullopt;
      }
      nodes_.push_back(Node{document, value, std::move(where), nullptr, {}});
    }
    return it->second;
  }

  void Error(const std::string& where, const std::string& message) {
    if (errors_.size() < kMaxErrors) errors_.push_back(absl::StrCat(Shown(where), ": ", message));
  }

  bool TooLong(const Json& value, const std::string& where) {
    if (!value.is_string() || value.get_ref<const std::string&>().size() <= kMaxReferenceBytes) {
      return false;
    }
    Error(where, absl::StrCat("longer than ", kMaxReferenceBytes, " bytes"));
    return true;
  }

  void Expand(size_t index) {
    const Json& value = *nodes_[index].value;
    const Json* document = nodes_[index].document;
    const std::string where = nodes_[index].where;
    std::vector<Edge> edges;
    auto child = [&](const Json& sub, const std::string& at, bool descends) {
      if (std::optional<size_t> id = Intern(document, &sub, at)) edges.push_back({*id, descends});
    };
    auto ref = value.find("$ref");
    if (ref != value.end()) {
      // valijson takes a node with "$ref" for the node referred to, and
      // looks at nothing else in it.
      if (!ref->is_string() || TooLong(*ref, where + "/$ref")) return;
      const std::string& text = ref->get_ref<const std::string&>();
      nodes_[index].reference = &text;
      size_t hash = text.find('#');
      std::string uri = text.substr(0, hash);
      std::string pointer = hash == std::string::npos ? "" : text.substr(hash + 1);
      const Json* target_document = uri.empty() ? document : find_document_(uri);
      if (target_document == nullptr) return;
      const Json* target = Resolve(*target_document, pointer);
      if (target == nullptr) return;
      std::string at = uri.empty() && document == &schema_ ? pointer : text;
      if (std::optional<size_t> id = Intern(target_document, target, at)) {
        nodes_[index].edges.push_back({*id, false});
      }
      return;
    }
    if (auto id = value.find("id"); id != value.end()) TooLong(*id, where + "/id");
    for (const char* key : {"allOf", "anyOf", "oneOf"}) {
      auto it = value.find(key);
      if (it == value.end() || !it->is_array()) continue;
      for (size_t i = 0; i < it->size(); ++i) {
        child((*it)[i], absl::StrCat(where, "/", key, "/", i), false);
      }
    }
    if (value.contains("if")) {
      for (const char* key : {"if", "then", "else"}) {
        if (auto it = value.find(key); it != value.end()) child(*it, where + "/" + key, false);
      }
    }
    if (auto it = value.find("not"); it != value.end()) child(*it, where + "/not", false);
    // Schema dependencies apply to the same value; property lists are no
    // schemas (child skips them).
    for (const auto& [key, descends] : {std::pair<const char*, bool>{"dependencies", false},
                                        {"properties", true},
                                        {"patternProperties", true}}) {
      auto it = value.find(key);
      if (it == value.end() || !it->is_object()) continue;
      for (const auto& item : it->items()) {
        child(item.value(),
              absl::StrCat(where, "/", key, "/", schema_keywords::EscapePointer(item.key())),
              descends);
      }
    }
    for (const char* key : {"additionalProperties", "contains", "propertyNames"}) {
      if (auto it = value.find(key); it != value.end()) child(*it, where + "/" + key, true);
    }
    if (auto items = value.find("items"); items != value.end()) {
      if (items->is_array()) {
        for (size_t i = 0; i < items->size(); ++i) {
          child((*items)[i], absl::StrCat(where, "/items/", i), true);
        }
        // valijson reads additionalItems only beside an array of items.
        if (auto more = value.find("additionalItems"); more != value.end()) {
          child(*more, where + "/additionalItems", true);
        }
      } else {
        child(*items, where + "/items", true);
      }
    }
    nodes_[index].edges = std::move(edges);
  }

  // Depth-first over the edges that stay at the same value; an edge back to
  // a node on the path closes a loop, which holds at least one "$ref" (the
  // keywords alone only lead down the document).
  void FindLoops() {
    enum : char { kNew, kOnPath, kDone };
    std::vector<char> state(nodes_.size(), kNew);
    std::vector<std::pair<size_t, size_t>> path;  // (node, next edge)
    std::vector<char> reported(nodes_.size(), 0);
    for (size_t start = 0; start < nodes_.size(); ++start) {
      if (state[start] != kNew) continue;
      state[start] = kOnPath;
      path.push_back({start, 0});
      while (!path.empty()) {
        auto& [node, next] = path.back();
        if (next == nodes_[node].edges.size()) {
          state[node] = kDone;
          path.pop_back();
          continue;
        }
        const Edge edge = nodes_[node].edges[next++];
        if (edge.descends || state[edge.to] == kDone) continue;
        if (state[edge.to] == kNew) {
          state[edge.to] = kOnPath;
          path.push_back({edge.to, 0});
          continue;
        }
        // A loop: from edge.to along the path, then back by `edge`.
        size_t first = 0;
        while (path[first].first != edge.to) ++first;
        for (size_t i = first; i < path.size(); ++i) {
          const Node& on_loop = nodes_[path[i].first];
          if (on_loop.reference == nullptr) continue;
          if (!reported[path[i].first]) {
            reported[path[i].first] = 1;
            Error(on_loop.where + "/$ref",
                  absl::StrCat("\"", *on_loop.reference, "\" leads back to ",
                               Shown(nodes_[edge.to].where),
                               " without moving into a part of the value: a loop that "
                               "never ends"));
          }
          break;
        }
      }
    }
  }

  // The most subschemas validation applies to one value from one node,
  // without moving into a part of the value (allOf, anyOf, oneOf, not,
  // if/then/else, dependencies, "$ref"): each node counts once per way it
  // is reached, so references that branch without looping count what they
  // cost (two references to the level below, forty deep: 2^40). `at` gets
  // the node with the most. REQUIRES: no loops (FindLoops found none), so
  // these edges form a DAG. Saturates above kMaxApplicationsPerValue.
  uint64_t MostApplications(size_t& at) const {
    const size_t n = nodes_.size();
    constexpr uint64_t kSaturated = kMaxApplicationsPerValue + 1;
    std::vector<uint64_t> applied(n, 0);           // 0: not counted yet
    std::vector<std::pair<size_t, size_t>> calls;  // (node, next edge)
    uint64_t most = 0;
    for (size_t root = 0; root < n; ++root) {
      if (applied[root] != 0) continue;
      calls.push_back({root, 0});
      while (!calls.empty()) {
        const size_t v = calls.back().first;
        const std::vector<Edge>& edges = nodes_[v].edges;
        size_t next = calls.back().second;
        while (next < edges.size() && (edges[next].descends || applied[edges[next].to] != 0)) {
          ++next;
        }
        calls.back().second = next;
        if (next < edges.size()) {
          calls.push_back({edges[next].to, 0});
          continue;
        }
        uint64_t total = 1;
        for (const Edge& edge : edges) {
          if (!edge.descends) total = std::min(kSaturated, total + applied[edge.to]);
        }
        applied[v] = total;
        if (total > most) {
          most = total;
          at = v;
        }
        calls.pop_back();
      }
    }
    return most;
  }

  // A bound on how deep valijson's parse of the schema recurses, in
  // subschemas. It parses each subschema where it stands, and again through
  // each reference (JSON Pointer) that leads to it the first time that
  // reference is met: within a loop, every reference may lead round once
  // more. So a group of subschemas that reach each other (found as Tarjan's
  // strongly connected components, iteratively) counts its size times one
  // more than its references, and the bound is the heaviest chain of groups.
  // A patternProperties keyword counts 3 more: CheckAndRewrite moves its
  // subschemas 3 levels down.
  uint64_t LongestParse() const {
    const size_t n = nodes_.size();
    constexpr size_t kNone = ~size_t{0};
    std::vector<size_t> order(n, kNone), low(n, 0), group(n, kNone);
    std::vector<char> on_stack(n, 0);
    std::vector<size_t> stack;
    std::vector<std::pair<size_t, size_t>> calls;  // (node, next edge)
    std::vector<uint64_t> heaviest;                // by group, groups in reverse topological order
    size_t counter = 0;
    auto enter = [&](size_t v) {
      order[v] = low[v] = counter++;
      stack.push_back(v);
      on_stack[v] = 1;
      calls.push_back({v, 0});
    };
    for (size_t root = 0; root < n; ++root) {
      if (order[root] != kNone) continue;
      enter(root);
      while (!calls.empty()) {
        const size_t v = calls.back().first;
        const size_t next = calls.back().second;
        if (next < nodes_[v].edges.size()) {
          ++calls.back().second;
          const size_t w = nodes_[v].edges[next].to;
          if (order[w] == kNone) {
            enter(w);
          } else if (on_stack[w]) {
            low[v] = std::min(low[v], order[w]);
          }
          continue;
        }
        calls.pop_back();
        if (!calls.empty()) {
          const size_t parent = calls.back().first;
          low[parent] = std::min(low[parent], low[v]);
        }
        if (low[v] != order[v]) continue;
        // v roots a group: the nodes above it on the stack.
        const size_t id = heaviest.size();
        std::vector<size_t> members;
        size_t member;
        do {
          member = stack.back();
          stack.pop_back();
          on_stack[member] = 0;
          group[member] = id;
          members.push_back(member);
        } while (member != v);
        uint64_t size = 0;
        uint64_t references = 0;
        bool loops = members.size() > 1;
        uint64_t below = 0;
        for (size_t m : members) {
          size += 1 + (nodes_[m].value->contains("patternProperties") ? 3 : 0);
          if (nodes_[m].reference != nullptr) ++references;
          for (const Edge& edge : nodes_[m].edges) {
            if (group[edge.to] == id) {
              loops = true;
            } else {
              below = std::max(below, heaviest[group[edge.to]]);
            }
          }
        }
        uint64_t weight = loops ? size * (references + 1) : size;
        heaviest.push_back(std::min<uint64_t>(weight + below, kMaxSchemaNesting + 1));
      }
    }
    return heaviest.empty() ? 0 : *std::max_element(heaviest.begin(), heaviest.end());
  }

  const Json& schema_;
  const DocumentFinder& find_document_;
  std::vector<Node> nodes_;
  std::map<std::pair<const Json*, const Json*>, size_t> ids_;
  std::vector<std::string> errors_;
  bool gave_up_ = false;
};

}  // namespace

std::vector<std::string> CheckReferences(const Json& schema, const DocumentFinder& find_document) {
  return Graph(schema, find_document).Check();
}

}  // namespace raw::tools::schema_refs
