// rawd as a process: socket security, one daemon per state directory,
// hostile bytes on the socket, and config problems reported clearly.
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

raw::v1::GetDaemonInfoResponse Info(raw::v1::Raw::Stub& stub, grpc::Status* status) {
  grpc::ClientContext ctx;
  raw::v1::GetDaemonInfoResponse resp;
  *status = stub.GetDaemonInfo(&ctx, raw::v1::GetDaemonInfoRequest(), &resp);
  return resp;
}

TEST_F(E2eTest, SocketIsOwnerOnlyInAPrivateDirectory) {
  struct stat st;
  ASSERT_EQ(stat(daemon_->socket_path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat(std::filesystem::path(daemon_->socket_path()).parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  grpc::Status s;
  auto info = Info(stub(), &s);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(info.pid(), daemon_->pid());
  EXPECT_EQ(info.socket_path(), daemon_->socket_path());
  EXPECT_EQ(info.config_path(), daemon_->config_path());
}

TEST_F(E2eTest, SecondDaemonForTheSameStateDirectoryExitsWithAClearMessage) {
  std::map<std::string, std::string> env = daemon_->env();
  std::string other_socket = daemon_->root() + "/run/second.sock";
  auto r = RunCommand({BinaryPath("rawd"), "--socket", other_socket, "--config",
                       daemon_->config_path()},
                      env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("already running"));
  EXPECT_THAT(r.err, HasSubstr(daemon_->state_dir()));
  grpc::Status s;
  Info(stub(), &s);
  EXPECT_TRUE(s.ok()) << "the first daemon must keep serving";
}

// A mistyped --config must not start a daemon on the built-in defaults
// (which may pick a model the user never chose); the default config file
// may be absent.
TEST_F(E2eTest, AConfigFileGivenWithConfigMustExist) {
  daemon_->Stop();
  const std::string missing = daemon_->root() + "/config/raw/typo.json";
  // The last --config wins, so this is rawd --socket S --config MISSING.
  absl::Status rawd = daemon_->Start({"--config", missing});
  EXPECT_FALSE(rawd.ok());
  EXPECT_THAT(std::string(rawd.message()),
              HasSubstr("the config file " + missing + " (given with --config) does not exist"));
  if (daemon_->running()) daemon_->Stop();

  CommandResult start = daemon_->RunRaw({"daemon", "start", "--config", missing});
  EXPECT_NE(start.exit_code, 0);
  EXPECT_THAT(start.err, HasSubstr("(given with --config) does not exist"));
  if (start.exit_code == 0) daemon_->RunRaw({"daemon", "stop"});

  // Without --config, a missing default file means the built-in defaults.
  ASSERT_TRUE(std::filesystem::remove(daemon_->config_path()));
  CommandResult defaults = daemon_->RunRaw({"daemon", "start"});
  EXPECT_EQ(defaults.exit_code, 0) << defaults.err;
  EXPECT_THAT(defaults.out, HasSubstr("rawd started"));
  EXPECT_EQ(daemon_->RunRaw({"daemon", "stop"}).exit_code, 0);
}

TEST_F(E2eTest, LooseSocketDirectoryIsRefused) {
  daemon_->Stop();
  std::string dir = std::filesystem::path(daemon_->socket_path()).parent_path();
  ASSERT_EQ(chmod(dir.c_str(), 0755), 0);
  absl::Status s = daemon_->Start();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("must be 0700"));
}

TEST_F(E2eTest, SocketDirectoryOwnedBySomeoneElseIsRefused) {
  if (getuid() != 0) GTEST_SKIP() << "needs root to give the directory away";
  daemon_->Stop();
  std::string dir = std::filesystem::path(daemon_->socket_path()).parent_path();
  ASSERT_EQ(chown(dir.c_str(), 65534, 65534), 0);
  absl::Status s = daemon_->Start();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("not by you"));
}

TEST_F(E2eTest, GarbageOnTheSocketDoesNotStopTheDaemon) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", daemon_->socket_path().c_str());
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  std::string junk = "GET / HTTP/1.1\r\nHost: x\r\n\r\n\x00\xff\xfe garbage PRI * HTTP/2.0";
  ASSERT_GT(write(fd, junk.data(), junk.size()), 0);
  char buf[256];
  while (read(fd, buf, sizeof buf) > 0) {
  }  // the daemon closes the connection
  close(fd);
  grpc::Status s;
  Info(stub(), &s);
  EXPECT_TRUE(s.ok()) << s.error_message();
  std::string session = daemon_->CreateSession();
  EXPECT_FALSE(session.empty());
}

TEST_F(E2eTest, UnknownAgentIsAClearError) {
  grpc::ClientContext ctx;
  raw::v1::CreateSessionRequest req;
  req.set_agent("nobody");
  req.set_cwd(daemon_->workdir());
  raw::v1::CreateSessionResponse resp;
  grpc::Status s = stub().CreateSession(&ctx, req, &resp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_THAT(s.error_message(), HasSubstr("nobody"));
  EXPECT_THAT(s.error_message(), HasSubstr("coder"));
}

TEST_F(E2eTest, MissingKeyVariableIsNamedAndNothingIsRecorded) {
  daemon_->Stop();
  daemon_->SetEnv("RAW_TEST_KEY", "");
  ASSERT_TRUE(daemon_->Start().ok());
  std::string session = daemon_->CreateSession();
  grpc::Status s;
  StartTurn(stub(), session, "hello", &s);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(s.error_message(), HasSubstr("RAW_TEST_KEY"));
  EXPECT_TRUE(fake_.requests().empty());
}

TEST_F(E2eTest, MalformedConfigIsReportedWithItsPathAndOtherSessionsKeepWorking) {
  std::string session = daemon_->CreateSession();
  {
    std::ofstream(daemon_->config_path())
        << TestConfig(fake_.base_url()).replace(0, 1, "{\n  \"modles\": {},");
  }
  grpc::ClientContext ctx;
  raw::v1::CheckConfigRequest req;
  raw::v1::CheckConfigResponse resp;
  ASSERT_TRUE(stub().CheckConfig(&ctx, req, &resp).ok());
  ASSERT_FALSE(resp.errors().empty());
  EXPECT_THAT(resp.errors(0), HasSubstr("modles"));

  grpc::ClientContext ctx2;
  raw::v1::CreateSessionRequest creq;
  creq.set_cwd(daemon_->workdir());
  raw::v1::CreateSessionResponse cresp;
  grpc::Status s = stub().CreateSession(&ctx2, creq, &cresp);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("modles"));

  // Meanwhile sessions still expire as the last valid config says (they
  // will once it is fixed), not "never".
  CommandResult list = daemon_->RunRaw({"sessions", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_THAT(list.out, HasSubstr(session));
  EXPECT_THAT(list.out, ::testing::Not(HasSubstr("never")));
  EXPECT_THAT(list.out, HasSubstr(" days "));

  // Fix the file: the daemon, still running, serves the existing session.
  { std::ofstream(daemon_->config_path()) << TestConfig(fake_.base_url()); }
  fake_.Enqueue(chat::TextAnswer("fine"));
  EventStream stream(stub(), session);
  auto end = stream.WaitForTurnEnd(StartTurn(stub(), session, "still there?"));
  ASSERT_TRUE(end.has_value());
  EXPECT_EQ(end->turn_ended().reason(), raw::v1::TURN_END_REASON_COMPLETED);
}

TEST_F(E2eTest, ListSessionsPagesThroughEverySession) {
  std::set<std::string> created;
  for (int i = 0; i < 5; ++i) created.insert(daemon_->CreateSession());
  std::set<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    grpc::ClientContext ctx;
    raw::v1::ListSessionsRequest req;
    req.set_page_size(2);
    req.set_page_token(token);
    raw::v1::ListSessionsResponse resp;
    ASSERT_TRUE(stub().ListSessions(&ctx, req, &resp).ok());
    EXPECT_LE(resp.sessions_size(), 2);
    for (const auto& s : resp.sessions()) EXPECT_TRUE(seen.insert(s.id()).second);
    token = resp.next_page_token();
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(seen, created);
  EXPECT_GE(pages, 3);
}

}  // namespace
}  // namespace raw::e2e
