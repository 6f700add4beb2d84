#include "daemon/store/session_row.h"

#include <algorithm>
#include <optional>

namespace raw::store {
namespace {

using events::Usage;

// The order of these entries is the order of the usage columns in
// kSelectSessionRow and of the parameters of kAddUsageAssignments.
struct UsageColumn {
  std::optional<int64_t> Usage::*field;
  int64_t UsageCoverage::*coverage;
};
constexpr UsageColumn kUsageColumns[] = {
    {&Usage::input_tokens, &UsageCoverage::input_tokens},
    {&Usage::output_tokens, &UsageCoverage::output_tokens},
    {&Usage::cache_read_tokens, &UsageCoverage::cache_read_tokens},
    {&Usage::cache_write_tokens, &UsageCoverage::cache_write_tokens},
    {&Usage::reasoning_tokens, &UsageCoverage::reasoning_tokens},
};

}  // namespace

const char kSelectSessionRow[] =
    "SELECT id, agent, cwd, created_at, last_activity_at, title, last_seq, usage_requests, "
    "input_tokens, input_tokens_requests, output_tokens, output_tokens_requests, "
    "cache_read_tokens, cache_read_tokens_requests, cache_write_tokens, "
    "cache_write_tokens_requests, reasoning_tokens, reasoning_tokens_requests, "
    "cache_ratio_requests, cache_ratio_input_tokens, cache_ratio_read_tokens, "
    "context_meter, runtime_hash, compactions, model, seq_reserved FROM sessions ";

SessionRecord ReadSessionRow(const Statement& row) {
  SessionRecord record;
  record.id = row.ColumnString(0);
  record.agent = row.ColumnString(1);
  record.cwd = row.ColumnString(2);
  record.created_at_unix_ms = row.ColumnInt64(3);
  record.last_activity_unix_ms = row.ColumnInt64(4);
  record.title = row.ColumnString(5);
  // Never negative once the store is open (seq_repair.h); a row changed
  // since reads as 0 rather than as a seq near 2^64.
  record.last_seq = static_cast<uint64_t>(std::max<int64_t>(0, row.ColumnInt64(6)));
  record.usage_requests = row.ColumnInt64(7);
  int column = 8;
  for (const UsageColumn& c : kUsageColumns) {
    int64_t sum = row.ColumnInt64(column++);
    int64_t count = row.ColumnInt64(column++);
    record.usage_coverage.*c.coverage = count;
    if (count > 0) record.usage.*c.field = sum;  // no report: unknown, not 0
  }
  record.cache_ratio.requests = row.ColumnInt64(column++);
  record.cache_ratio.input_tokens = row.ColumnInt64(column++);
  record.cache_ratio.cache_read_tokens = row.ColumnInt64(column++);
  record.context_meter = row.ColumnString(column++);
  record.runtime_hash = row.ColumnString(column++);
  record.compactions = row.ColumnInt64(column++);
  record.model = row.ColumnString(column++);
  record.seq_reserved = static_cast<uint64_t>(std::max<int64_t>(0, row.ColumnInt64(column++)));
  return record;
}

const char kAddUsageAssignments[] =
    "usage_requests = usage_requests + 1, "
    "input_tokens = input_tokens + ?, input_tokens_requests = input_tokens_requests + ?, "
    "output_tokens = output_tokens + ?, output_tokens_requests = output_tokens_requests + ?, "
    "cache_read_tokens = cache_read_tokens + ?, "
    "cache_read_tokens_requests = cache_read_tokens_requests + ?, "
    "cache_write_tokens = cache_write_tokens + ?, "
    "cache_write_tokens_requests = cache_write_tokens_requests + ?, "
    "reasoning_tokens = reasoning_tokens + ?, "
    "reasoning_tokens_requests = reasoning_tokens_requests + ?, "
    "cache_ratio_requests = cache_ratio_requests + ?, "
    "cache_ratio_input_tokens = cache_ratio_input_tokens + ?, "
    "cache_ratio_read_tokens = cache_ratio_read_tokens + ?";

int BindAddUsage(Statement& update, int param, const Usage& usage) {
  for (const UsageColumn& c : kUsageColumns) {
    const std::optional<int64_t>& value = usage.*c.field;
    update.BindInt64(param++, value.value_or(0));
    update.BindInt(param++, value.has_value() ? 1 : 0);
  }
  const bool both = usage.input_tokens.has_value() && usage.cache_read_tokens.has_value();
  update.BindInt(param++, both ? 1 : 0);
  update.BindInt64(param++, both ? *usage.input_tokens : 0);
  update.BindInt64(param++, both ? *usage.cache_read_tokens : 0);
  return param;
}

}  // namespace raw::store
