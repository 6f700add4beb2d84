// ProtectedLinks: the hard links of protected files (protected_paths.h).
//
// Path rules compare paths, not files: `ln ~/.ssh/id_ed25519 notes.txt`
// gives the key a second name no protected path covers, and that name
// reads the same bytes. So the file tools are also denied every file that
// is the same file (device and inode) as a regular file in a protected
// place: a protected file itself, or one found below a protected
// directory.
//
// Cost: a file with one link (st_nlink == 1) can be no other file's second
// name, and a directory can have no hard link, so only a non-directory with
// st_nlink > 1 is compared. Only then are the protected places walked (a
// Snapshot), and only files with st_nlink > 1 found there are kept: a
// protected file with one link has no other name. A Snapshot is taken
// afresh for each check of a single path, so a link made between two checks
// is seen by the second; a walk takes one for all its entries.
//
// Bounds: each protected directory is walked to kMaxDepth levels and
// kMaxEntries entries. Past either bound Raw cannot tell that a file is no
// link of one of its files, so a file with several links on the same file
// system (device) as such a directory is denied too, the reason saying so.
// Files on other file systems (a hard link cannot cross one) and files with
// one link are not affected. A root that belongs to another user (another
// local user can make /tmp/raw-$UID first, unreadable, or fill it) is
// looked through as far as it can be, but makes no file system doubtful:
// else that user could have every file with several links denied.
//
// Immutable after construction; thread-safe. A Snapshot belongs to its
// caller.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace raw::tools::policy {

class ProtectedLinks {
 public:
  static constexpr int kMaxDepth = 16;
  static constexpr int kMaxEntries = 50000;

  // A protected file or directory, as a built-in deny rule names it, with
  // the label that rule's reasons use ("protected path ~/.ssh; an agent
  // lifts it with ...").
  struct Root {
    std::string path;  // absolute; links in it are followed, as path rules do
    std::string label;
  };

  // The protected files with more than one link, as the file system holds
  // them when taken.
  struct Snapshot {
    struct Found {
      std::string path;  // the protected file's path
      size_t root = 0;   // index into the roots
    };
    std::map<std::pair<dev_t, ino_t>, Found> files;
    // A device on which a root was not walked whole, and the first such root.
    std::map<dev_t, size_t> doubtful;
  };

  // `owner`: the user whose roots count as this user's (for the doubt
  // above); the effective user unless a test says otherwise.
  explicit ProtectedLinks(std::vector<Root> roots, uid_t owner = geteuid());

  // The path a kPath glob names when it names one literal file or
  // directory: `pattern` unescaped (EscapeGlob's inverse), with a trailing
  // "/**" taken off; nullopt for any other pattern (a glob character, a
  // "re:" pattern, a relative one).
  static std::optional<std::string> LiteralPathOf(const std::string& pattern);

  const std::vector<Root>& roots() const { return roots_; }

  // Walks the roots now.
  Snapshot Take() const;

  // Why the file at `path`, whose stat(2) is `info`, must be denied as
  // another name of a protected file (or as one Raw cannot tell is not):
  // the root's label and what the file is, "protected path ~/.ssh; ... (a
  // hard link of /home/u/.ssh/id_ed25519)"; nullopt when it is not. Takes
  // `snapshot` when it is needed and not yet taken, and keeps it there.
  std::optional<std::string> Check(const std::string& path, const struct stat& info,
                                   std::optional<Snapshot>& snapshot) const;

  // Check for the file at `path` as stat(2) finds it now, with a snapshot
  // of its own; nullopt when nothing is there (nothing to read by that
  // name).
  std::optional<std::string> CheckPath(const std::string& path) const;

 private:
  std::vector<Root> roots_;
  uid_t owner_;
};

}  // namespace raw::tools::policy
