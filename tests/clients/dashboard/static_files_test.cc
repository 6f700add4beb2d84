#include "clients/dashboard/static_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"

namespace raw::dashboard {
namespace {

class StaticFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/raw_static_XXXXXX";
    base_ = mkdtemp(tmpl);
    root_ = base_ + "/web";
    std::filesystem::create_directories(root_ + "/assets/sub");
    std::ofstream(root_ + "/index.html") << "<!doctype html>";
    std::ofstream(root_ + "/assets/app.js") << "console.log(1)";
    std::ofstream(root_ + "/assets/style.css") << "body{}";
    std::ofstream(root_ + "/assets/sub/inner.js") << "inner";
    std::ofstream(base_ + "/secret.txt") << "secret";
    std::filesystem::create_symlink(base_ + "/secret.txt", root_ + "/assets/link.js");
  }
  void TearDown() override { std::filesystem::remove_all(base_); }
  std::string base_;
  std::string root_;
};

TEST_F(StaticFilesTest, ServesTheAppWithItsTypesAndCaching) {
  StaticFiles files(root_);
  for (const char* path : {"/", "/index.html"}) {
    web::Response index = files.Serve(path);
    EXPECT_EQ(index.status, 200) << path;
    EXPECT_EQ(index.content_type, "text/html; charset=utf-8");
    EXPECT_EQ(index.body, "<!doctype html>");
    EXPECT_FALSE(index.no_store);
  }
  web::Response js = files.Serve("/assets/app.js");
  EXPECT_EQ(js.status, 200);
  EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(js.body, "console.log(1)");
  EXPECT_EQ(files.Serve("/assets/style.css").content_type, "text/css; charset=utf-8");
}

TEST_F(StaticFilesTest, NothingOutsideTheDirectoryOrBesideTheRules) {
  StaticFiles files(root_);
  for (const char* path :
       {"/assets/../../secret.txt", "/assets/..%2f..%2fsecret.txt", "/assets/sub/inner.js",
        "/assets/sub", "/assets/", "/assets/.hidden", "/secret.txt", "/../secret.txt",
        "/assets/link.js", "/assets/missing.js", "/index.htm", "//etc/passwd"}) {
    EXPECT_EQ(files.Serve(path).status, 404) << path;
  }
}

TEST(ContentTypeTest, KnownAndUnknownExtensions) {
  EXPECT_EQ(ContentTypeFor("a.svg"), "image/svg+xml");
  EXPECT_EQ(ContentTypeFor("a.json"), "application/json");
  EXPECT_EQ(ContentTypeFor("a.woff2"), "font/woff2");
  EXPECT_EQ(ContentTypeFor("a.exe"), "application/octet-stream");
  EXPECT_TRUE(IsPlainAssetName("app-1.min.js"));
  EXPECT_FALSE(IsPlainAssetName("a/b.js"));
  EXPECT_FALSE(IsPlainAssetName(".env"));
  EXPECT_FALSE(IsPlainAssetName("a b.js"));
}

}  // namespace
}  // namespace raw::dashboard
