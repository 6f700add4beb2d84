// EventJsonText: the direct printing of streamed deltas is exactly the
// protobuf JSON mapping the generic path prints.
#include "clients/dashboard/proto_json.h"

#include "gtest/gtest.h"

namespace raw::dashboard {
namespace {

v1::Event Delta(const std::string& text, bool reasoning) {
  v1::Event e;
  e.set_session_id("01abc");
  e.set_seq(18446744073709551615ull);
  e.set_turn_id("turn_\"quoted\"");
  e.set_time_unix_ms(-5);
  if (reasoning) {
    e.mutable_reasoning_delta()->set_text(text);
  } else {
    e.mutable_text_delta()->set_text(text);
  }
  return e;
}

TEST(ProtoJsonTest, DeltasPrintAsTheGenericMappingDoes) {
  for (const std::string& text : {std::string(""), std::string("plain"),
                                 std::string("quote \" backslash \\ newline \n tab \t"),
                                 std::string("control \x01\x1f and unicode \xc3\xa9\xe2\x86\x92 \xf0\x9f\x98\x80"),
                                 std::string("</script><img src=x>")}) {
    for (bool reasoning : {false, true}) {
      v1::Event e = Delta(text, reasoning);
      Json direct = Json::parse(EventJsonText(e));
      Json generic = Json::parse(ToJsonText(e));
      EXPECT_EQ(direct, generic) << text;
    }
  }
  v1::Event empty;
  empty.mutable_text_delta();
  EXPECT_EQ(Json::parse(EventJsonText(empty)), Json::parse(ToJsonText(empty)));
}

// A joined delta reads as the last delta would had it carried the joined
// text: same session, seq, turn and time, and the kind of delta kept.
TEST(ProtoJsonTest, AJoinedDeltaIsTheEventWithTheJoinedText) {
  for (bool reasoning : {false, true}) {
    v1::Event last = Delta("c2 ", reasoning);
    v1::Event joined = last;
    if (reasoning) {
      joined.mutable_reasoning_delta()->set_text("c0 c1 \"c2 ");
    } else {
      joined.mutable_text_delta()->set_text("c0 c1 \"c2 ");
    }
    EXPECT_EQ(Json::parse(DeltaJsonText(last, "c0 c1 \"c2 ")), Json::parse(ToJsonText(joined)));
  }
}

TEST(ProtoJsonTest, OtherEventsUseTheGenericMapping) {
  v1::Event e;
  e.set_seq(3);
  e.mutable_turn_started()->set_user_text("hi");
  EXPECT_EQ(EventJsonText(e), ToJsonText(e));
}

}  // namespace
}  // namespace raw::dashboard
