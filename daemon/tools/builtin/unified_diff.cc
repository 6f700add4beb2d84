#include "daemon/tools/builtin/unified_diff.h"
#include "daemon/tools/builtin/string_view_bridge.h"

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"

namespace raw::tools::builtin {
namespace {

enum class OpType { kEqual, kDelete, kInsert };

struct Op {
  OpType type;
  size_t old_index;  // the line in the old text (kEqual, kDelete)
  size_t new_index;  // the line in the new text (kEqual, kInsert)
};

// Lines with their '\n' (the last may lack one).
std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(start, end - start));
    start = end;
  }
  return lines;
}

// Myers' greedy forward search over a[0,n) and b[0,m) (line ids), keeping the
// frontier of every step for the walk back. Appends the edit script, with
// indices shifted by `old_base`/`new_base`, to `ops`. False, with `ops`
// untouched, when more than `max_edits` edits would be needed.
bool MyersDiff(const std::vector<int>& a, const std::vector<int>& b, size_t old_base,
               size_t new_base, size_t max_edits, std::vector<Op>& ops) {
  const long n = static_cast<long>(a.size());
  const long m = static_cast<long>(b.size());
  const long max_d = std::min<long>(n + m, static_cast<long>(max_edits));
  const long offset = max_d + 1;
  std::vector<long> v(static_cast<size_t>(2 * max_d + 3), 0);
  auto at = [&](std::vector<long>& vec, long k) -> long& {
    return vec[static_cast<size_t>(k + offset)];
  };
  // trace[d] holds v[-d-1 .. d+1] as it was before step d.
  std::vector<std::vector<long>> trace;
  long found_d = -1;
  for (long d = 0; d <= max_d && found_d < 0; ++d) {
    trace.emplace_back(v.begin() + (offset - d - 1), v.begin() + (offset + d + 2));
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && at(v, k - 1) < at(v, k + 1))) ? at(v, k + 1)
                                                                     : at(v, k - 1) + 1;
      long y = x - k;
      while (x < n && y < m && a[static_cast<size_t>(x)] == b[static_cast<size_t>(y)]) {
        ++x;
        ++y;
      }
      at(v, k) = x;
      if (x >= n && y >= m) {
        found_d = d;
        break;
      }
    }
  }
  if (found_d < 0) return false;

  std::vector<Op> reversed;
  long x = n;
  long y = m;
  for (long d = found_d; d > 0; --d) {
    const std::vector<long>& prev = trace[static_cast<size_t>(d)];
    auto prev_at = [&](long k) { return prev[static_cast<size_t>(k + d + 1)]; };
    long k = x - y;
    long prev_k = (k == -d || (k != d && prev_at(k - 1) < prev_at(k + 1))) ? k + 1 : k - 1;
    long prev_x = prev_at(prev_k);
    long prev_y = prev_x - prev_k;
    while (x > prev_x && y > prev_y) {
      --x;
      --y;
      reversed.push_back({OpType::kEqual, old_base + static_cast<size_t>(x),
                          new_base + static_cast<size_t>(y)});
    }
    if (x == prev_x) {
      --y;
      reversed.push_back({OpType::kInsert, old_base + static_cast<size_t>(x),
                          new_base + static_cast<size_t>(y)});
    } else {
      --x;
      reversed.push_back({OpType::kDelete, old_base + static_cast<size_t>(x),
                          new_base + static_cast<size_t>(y)});
    }
  }
  while (x > 0 && y > 0) {
    --x;
    --y;
    reversed.push_back(
        {OpType::kEqual, old_base + static_cast<size_t>(x), new_base + static_cast<size_t>(y)});
  }
  ops.insert(ops.end(), reversed.rbegin(), reversed.rend());
  return true;
}

// The edit script turning `a` into `b`.
std::vector<Op> EditScript(const std::vector<std::string_view>& a,
                           const std::vector<std::string_view>& b, const DiffOptions& options) {
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
    ++tail;
  }
  std::vector<Op> ops;
  for (size_t i = 0; i < head; ++i) ops.push_back({OpType::kEqual, i, i});

  const size_t a_end = a.size() - tail;
  const size_t b_end = b.size() - tail;
  bool done = false;
  if (head == a_end || head == b_end) {
    done = false;  // pure insertion or deletion: the block below is exact
  } else if ((a_end - head) + (b_end - head) <= options.max_compared_lines) {
    // Compare line ids rather than strings.
    std::unordered_map<std::string_view, int> ids;
    auto id_of = [&](std::string_view line) {
      return ids.emplace(line, static_cast<int>(ids.size())).first->second;
    };
    std::vector<int> a_ids;
    std::vector<int> b_ids;
    for (size_t i = head; i < a_end; ++i) a_ids.push_back(id_of(a[i]));
    for (size_t i = head; i < b_end; ++i) b_ids.push_back(id_of(b[i]));
    done = MyersDiff(a_ids, b_ids, head, head, options.max_edits, ops);
  }
  if (!done) {
    for (size_t i = head; i < a_end; ++i) ops.push_back({OpType::kDelete, i, head});
    for (size_t i = head; i < b_end; ++i) ops.push_back({OpType::kInsert, a_end, i});
  }
  for (size_t i = 0; i < tail; ++i) ops.push_back({OpType::kEqual, a_end + i, b_end + i});
  return ops;
}

std::string Range(size_t start, size_t count) {
  // diff -u: the 1-based first line, or the line before an empty range;
  // the count is omitted when it is 1.
  size_t first = count == 0 ? start : start + 1;
  return count == 1 ? absl::StrCat(first) : absl::StrCat(first, ",", count);
}

void AppendLine(std::string& out, char prefix, std::string_view line) {
  out += prefix;
  if (!line.empty() && line.back() == '\n') {
    out.append(line);
  } else {
    out.append(line);
    out += "\n\\ No newline at end of file\n";
  }
}

}  // namespace

std::string UnifiedDiff(std::string_view old_text, std::string_view new_text,
                        std::string_view old_label, std::string_view new_label,
                        const DiffOptions& options) {
  if (old_text == new_text) return "";
  std::vector<std::string_view> a = SplitLines(old_text);
  std::vector<std::string_view> b = SplitLines(new_text);
  std::vector<Op> ops = EditScript(a, b, options);
  const size_t context = static_cast<size_t>(std::max(0, options.context_lines));

  std::string out = absl::StrCat("--- ", ToAbsl(old_label), "\n+++ ", ToAbsl(new_label), "\n");
  size_t i = 0;
  while (i < ops.size()) {
    if (ops[i].type == OpType::kEqual) {
      ++i;
      continue;
    }
    // A hunk: this change, and every later one separated from the previous
    // by at most 2 * context unchanged lines, with context around them.
    const size_t start = i >= context ? i - context : 0;
    size_t last_change = i;
    size_t j = i;
    while (j < ops.size()) {
      if (ops[j].type != OpType::kEqual) {
        last_change = j++;
        continue;
      }
      size_t run = j;
      while (j < ops.size() && ops[j].type == OpType::kEqual) ++j;
      if (j == ops.size() || j - run > 2 * context) break;
    }
    const size_t end = std::min(ops.size(), last_change + 1 + context);
    size_t old_count = 0;
    size_t new_count = 0;
    for (size_t k = start; k < end; ++k) {
      old_count += ops[k].type != OpType::kInsert;
      new_count += ops[k].type != OpType::kDelete;
    }
    absl::StrAppend(&out, "@@ -", Range(ops[start].old_index, old_count), " +",
                    Range(ops[start].new_index, new_count), " @@\n");
    for (size_t k = start; k < end; ++k) {
      switch (ops[k].type) {
        case OpType::kEqual:
          AppendLine(out, ' ', a[ops[k].old_index]);
          break;
        case OpType::kDelete:
          AppendLine(out, '-', a[ops[k].old_index]);
          break;
        case OpType::kInsert:
          AppendLine(out, '+', b[ops[k].new_index]);
          break;
      }
    }
    i = end;
  }
  return out;
}

}  // namespace raw::tools::builtin
