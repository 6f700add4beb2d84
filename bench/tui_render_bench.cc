// Render cost of the terminal client per streamed delta: apply one text
// delta to the transcript model, compose the visible rows (re-rendering the
// growing Markdown message) and diff them against the previous frame, the
// work `raw` does per delta. At 1,000 deltas per second the budget is 1 ms
// per delta on one core; the figure printed is the share of that budget.
//
//   ninja -C build tui_render_bench && build/bin/tui_render_bench
#include <benchmark/benchmark.h>

#include <string>

#include "clients/tui/markdown_renderer.h"
#include "clients/tui/screen.h"
#include "clients/tui/transcript.h"
#include "clients/tui/transcript_view.h"

namespace raw::tui {
namespace {

class NullCanvas : public Canvas {
 public:
  void WriteRow(int, const StyledLine& line) override { bytes += line.spans.size(); }
  void Commit(const std::optional<CursorPos>&) override {}
  size_t bytes = 0;
};

// A Markdown answer as a model streams it, in pieces of ~24 bytes.
const char kAnswer[] =
    "## Findings\n\nThe parser fails on **nested** lists because `ParseItem` resets the "
    "indent. A fix:\n\n```cpp\nint ParseItem(Parser& p, int indent) {\n  return "
    "p.Next(indent + 2);\n}\n```\n\n- keep the indent per level\n- add a test for three "
    "levels\n- run `make check`\n\n| file | change |\n|---|---|\n| parser.cc | indent |\n\n";

v1::Event Delta(uint64_t seq, std::string text) {
  v1::Event e;
  e.set_seq(seq);
  e.set_turn_id("t");
  e.mutable_text_delta()->set_text(std::move(text));
  return e;
}

// `state.range(0)`: deltas per message before a new turn starts (the
// message length the per-delta cost is averaged over).
void BM_StreamDelta(benchmark::State& state) {
  const int per_message = static_cast<int>(state.range(0));
  const std::string answer(kAnswer);
  Transcript transcript;
  TranscriptView view(Glyphs::Unicode());
  NullCanvas canvas;
  Screen screen(canvas);
  screen.Resize(40, 100);
  uint64_t seq = 0;
  int in_message = 0;
  size_t offset = 0;
  for (auto _ : state) {
    if (in_message == 0) {
      v1::Event start;
      start.set_seq(++seq);
      start.set_turn_id("t");
      start.mutable_turn_started()->set_user_text("why does the parser fail?");
      transcript.Apply(start);
      offset = 0;  // each answer starts at the beginning of the text
    }
    // The answer repeated: pieces run on across its end.
    std::string piece;
    for (size_t i = 0; i < 24; ++i) piece += answer[(offset + i) % answer.size()];
    offset += 24;
    transcript.Apply(Delta(++seq, piece));
    TranscriptView::Frame frame = view.Compose(transcript, 100, 38, 0);
    screen.Present(frame.rows, std::nullopt);
    if (++in_message == per_message) {
      v1::Event end;
      end.set_seq(++seq);
      end.set_turn_id("t");
      end.mutable_turn_ended()->set_reason(v1::TURN_END_REASON_COMPLETED);
      transcript.Apply(end);
      in_message = 0;
    }
  }
  state.SetItemsProcessed(state.iterations());
  // Time per delta is the benchmark's time per iteration. CPU share of one core at 1,000 deltas per second.
  state.counters["core_at_1000_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) / 1000.0,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_StreamDelta)->Arg(50)->Arg(200)->Arg(1000);

// A model streaming one huge fenced code block that has not closed yet:
// `state.range(0)` bytes of code are in the message before the timed deltas,
// each of which appends one more line of code in two pieces (the line's end
// arrives with the next piece, as deltas cut lines anywhere). The per-delta
// cost should not grow with the block.
void BM_StreamOpenCodeBlock(benchmark::State& state) {
  const size_t prefix = static_cast<size_t>(state.range(0));
  const std::string code_line =
      "  total += weights[i] * inputs[i];  // accumulate the dot product\n";
  Transcript transcript;
  TranscriptView view(Glyphs::Unicode());
  NullCanvas canvas;
  Screen screen(canvas);
  screen.Resize(40, 100);
  uint64_t seq = 0;
  v1::Event start;
  start.set_seq(++seq);
  start.set_turn_id("t");
  start.mutable_turn_started()->set_user_text("write the whole kernel");
  transcript.Apply(start);
  std::string text = "Here it is:\n\n```cpp\n";
  while (text.size() < prefix) text += code_line;
  transcript.Apply(Delta(++seq, text));
  screen.Present(view.Compose(transcript, 100, 38, 0).rows, std::nullopt);
  const size_t half = code_line.size() / 2;
  const std::string pieces[2] = {code_line.substr(0, half), code_line.substr(half)};
  int piece = 0;
  for (auto _ : state) {
    transcript.Apply(Delta(++seq, pieces[piece]));
    piece ^= 1;
    TranscriptView::Frame frame = view.Compose(transcript, 100, 38, 0);
    screen.Present(frame.rows, std::nullopt);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StreamOpenCodeBlock)
    ->Arg(64 << 10)
    ->Arg(1 << 20)
    ->Arg(4 << 20)
    ->Unit(benchmark::kMicrosecond);

// A model streaming Markdown that cmark-gfm parses in time quadratic in its
// length ("a <?" repeated, with no blank line to cut it into chunks):
// `state.range(0)` bytes before the timed deltas of 24 bytes each. Under
// the parse budget the growing chunk is parsed at every delta; over it, it
// is rendered as plain text piece by piece, so the cost stops growing.
void BM_StreamUnparsableChunk(benchmark::State& state) {
  const size_t prefix = static_cast<size_t>(state.range(0));
  const std::string unit = "a <? b ";
  Transcript transcript;
  TranscriptView view(Glyphs::Unicode());
  NullCanvas canvas;
  Screen screen(canvas);
  screen.Resize(40, 100);
  uint64_t seq = 0;
  v1::Event start;
  start.set_seq(++seq);
  start.set_turn_id("t");
  start.mutable_turn_started()->set_user_text("say it");
  transcript.Apply(start);
  std::string text;
  while (text.size() < prefix) text += unit;
  transcript.Apply(Delta(++seq, text));
  screen.Present(view.Compose(transcript, 100, 38, 0).rows, std::nullopt);
  const std::string piece = unit + unit + unit + "xyz";
  for (auto _ : state) {
    transcript.Apply(Delta(++seq, piece));
    TranscriptView::Frame frame = view.Compose(transcript, 100, 38, 0);
    screen.Present(frame.rows, std::nullopt);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StreamUnparsableChunk)
    ->Arg(4 << 10)
    ->Arg(16 << 10)
    ->Arg(28 << 10)
    ->Arg(1 << 20)
    ->Unit(benchmark::kMicrosecond);

// A table of `state.range(0)` columns of 100-column cells, fitted to 100
// columns: the column widths come from one pass over the columns.
void BM_WideTable(benchmark::State& state) {
  const int columns = static_cast<int>(state.range(0));
  std::string header = "|";
  std::string rule = "|";
  std::string row = "|";
  for (int c = 0; c < columns; ++c) {
    header += " h |";
    rule += "---|";
    row += " " + std::string(100, 'x') + " |";
  }
  const std::string table = header + "\n" + rule + "\n" + row + "\n";
  for (auto _ : state) {
    Lines lines = RenderMarkdown(table, 100, Glyphs::Unicode());
    benchmark::DoNotOptimize(lines);
  }
}
BENCHMARK(BM_WideTable)->Arg(20)->Arg(200)->Arg(2000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace raw::tui

BENCHMARK_MAIN();
