// The tuning database: data/tuned/<gpu>-<acc>.jsonl, append-only JSON Lines (schema in
// docs/tuner.md). Line 1 is a header holding the environment fingerprint; every later line is a
// measurement (failures included: they are the blocklist and part of the policy's replay) or a
// saved policy state. Nothing is ever rewritten in place:
//   - the tuner appends one line per candidate and fsyncs it, so a kill -9 loses at most the
//     candidate in flight; a partial last line is reported and cut before the next append;
//   - whole-file writes (merge, compaction) go to a temp file, fsync, then rename.
// Reading never stops at a bad line: the error names the line, and every intact line is used.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/device.hpp"
#include "hgemm/hgemm.hpp"
#include "tuner/measure/measurer.hpp"

namespace hgemm::tuner {

inline constexpr int kSchemaVersion = 1;

// key=value facts about the machine and build: gpu, sm_count, driver, cuda, cublas, git, ...
using Fingerprint = std::vector<std::pair<std::string, std::string>>;

struct Record {
  Problem problem;
  std::string config;  // KernelConfig::name()
  Measurement measurement;
  double reward = kNaN;    // as computed when measured; readers recompute it with their weights
  std::string policy;      // which policy proposed the candidate
  std::string timestamp;   // UTC, ISO 8601
  // Measured because --include named it (a proposal from outside the policy), not because the
  // policy or a neighbour seed picked it: replay pulls toward such a candidate when it wins.
  bool included = false;
  // Measured again after a change to the config's kernel (tune --remeasure-before): this record
  // and the later ones of the same problem and config replace the earlier ones wherever a
  // config's time on a problem counts (current_records).
  bool supersedes = false;
};

struct PolicyState {
  std::string policy;
  std::string state;  // SearchPolicy::save()
};

struct Database {
  Fingerprint header;                  // empty when the file had none
  std::vector<Record> records;         // file order
  // "variant" lines: an accepted kernel source rewrite measured on one problem, with its
  // provenance (hgemm.propose --rewrite writes them; docs/tuner.md). Kept as written, in file
  // order: the instance they name runs another source, so tables, dispatch and the policy never
  // read them.
  std::vector<std::string> variants;
  std::optional<PolicyState> policy;   // the last one saved
  std::vector<std::string> errors;     // "<origin>:<line>: <reason>", one per skipped line
};

// A source rewrite's name (its folder under variants/, and its "variant" lines): lower-case
// letters, digits and _, starting with a letter, at most 64 characters.
bool is_variant_name(std::string_view name);

std::string format_header(const Fingerprint& fingerprint);
std::string format_record(const Record& record);
std::string format_policy(const PolicyState& state);

// The records whose times count: per problem and config, those from its newest superseding
// record on (all of them where none supersedes), in file order. The file keeps every record;
// tables and scoring read this view, so that a re-measurement after a kernel change replaces the
// old kernel's times instead of being averaged with them.
std::vector<Record> current_records(const std::vector<Record>& records);

// Parses a whole file's text. A line that is malformed, of an unknown type, or not ended by a
// newline (a write cut short) is skipped with an error; everything else is kept.
Database parse_database(std::string_view text, std::string_view origin = "<text>");
// A missing file is an empty database without errors.
Database load_database(const std::string& path);

struct FingerprintCheck {
  bool same_device = true;                // gpu and sm_count agree
  std::vector<std::string> differences;  // "gpu: <db> vs <running>", also for soft keys
};
// `gpu` and `sm_count` decide whether measurements transfer; driver, cuda, cublas and git only
// add differences worth a note. Keys missing on either side are not compared.
FingerprintCheck compare_fingerprints(const Fingerprint& db, const Fingerprint& running);
std::string fingerprint_value(const Fingerprint& fingerprint, std::string_view key);
// The device a database's header describes, for CPU-side use of its records (tables, `db
// predict`, `db loo`, ablation): its GPU, SM count and L2 size, nominal_device's values for what
// the header lacks. The L2 matters to dispatch's raster guard, so the tools see what dispatch
// sees on that device.
DeviceInfo database_device(const Fingerprint& header);

// Measurements compete in a database only when taken under the same timing conditions: today
// programmatic dependent launch (`pdl`), which alone takes about 0.7 us off a small call in graph
// mode. A database with records and no `pdl` key was timed with it off (its records predate the
// key). Empty when the run may append to the database, else the reason it may not. A run that
// does not say (a synthetic measurer) is not compared.
std::string timing_mismatch(const Fingerprint& db, bool db_has_records,
                            const Fingerprint& running);

// Appends to a database file, creating it (and its directory) with `header` if it is missing
// or empty. Refuses (hgemm::Error) a file whose header names another device. Cuts a partial
// last line left by a killed writer. Every append is one write() of a whole line plus fsync.
class DatabaseWriter {
 public:
  DatabaseWriter(std::string path, const Fingerprint& header);
  ~DatabaseWriter();
  DatabaseWriter(const DatabaseWriter&) = delete;
  DatabaseWriter& operator=(const DatabaseWriter&) = delete;

  void append(const Record& record);
  void append(const PolicyState& state);
  const std::string& path() const { return path_; }

 private:
  void append_line(const std::string& line);
  std::string path_;
  int fd_ = -1;
};

// Whether `path` names a compressed database (a .gz name, or gzip bytes in the file), which the
// readers take and the writers refuse: a tuning run checks this before it measures anything.
bool is_compressed_database(const std::string& path);
// The refusal every writer gives for such a path, with the way out.
std::string compressed_database_refusal(const std::string& path);

// Replaces `path` atomically with the database (temp file in the same directory, fsync, rename,
// fsync of the directory).
void write_database(const std::string& path, const Database& db);

// One database from several (shard outputs, copies from other runs): the first header, every
// record once (exact duplicates dropped, order kept), the last policy state. Throws hgemm::Error
// if the parts come from different devices; carries every part's errors.
Database merge_databases(const std::vector<Database>& parts);

// Configs that failed (incorrect or launch failure) anywhere, with the first reason.
std::map<std::string, std::string> blocklist(const std::vector<Record>& records);

}  // namespace hgemm::tuner
