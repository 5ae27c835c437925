// SPDX-License-Identifier: Apache-2.0
#include "job_coordinator/job_store.hpp"

namespace job_coordinator {

job_store::job_store(const std::filesystem::path& file) : db_(file) {}

void job_store::create(const std::vector<std::string>& jobs) {
  db_.exec(
      "CREATE TABLE job_state (job TEXT PRIMARY KEY, last_run INTEGER NOT NULL DEFAULT -1,"
      "  fence INTEGER NOT NULL DEFAULT 0);"
      "CREATE TABLE effects (id INTEGER PRIMARY KEY, job TEXT NOT NULL, due INTEGER NOT NULL,"
      "  token INTEGER NOT NULL, worker TEXT NOT NULL, started_ms INTEGER NOT NULL,"
      "  committed_ms INTEGER NOT NULL);"
      "CREATE TABLE outbox (idempotency_key TEXT PRIMARY KEY, token INTEGER NOT NULL,"
      "  worker TEXT NOT NULL);");
  auto insert = db_.prepare("INSERT INTO job_state (job) VALUES (?)");
  for (const auto& job : jobs) {
    insert.bind(1, job);
    insert.step();
    insert.reset();
  }
}

std::int64_t job_store::last_run(const std::string& job) {
  auto read = db_.prepare("SELECT last_run FROM job_state WHERE job = ?");
  read.bind(1, job);
  return read.step() ? read.column_int64(0) : -1;
}

bool job_store::send_email(const job_run& run, std::int64_t token, const std::string& worker) {
  auto insert = db_.prepare(
      "INSERT INTO outbox (idempotency_key, token, worker) VALUES (?, ?, ?)"
      " ON CONFLICT (idempotency_key) DO NOTHING");
  insert.bind(1, run.key()).bind(2, token).bind(3, worker);
  insert.step();
  return db_.changes() == 1;
}

bool job_store::claim(const std::string& job, std::int64_t token) {
  auto update = db_.prepare("UPDATE job_state SET fence = ? WHERE job = ? AND fence < ?");
  update.bind(1, token).bind(2, job).bind(3, token);
  update.step();
  return db_.changes() == 1;
}

bool job_store::commit(const job_run& run, std::int64_t token, const std::string& worker,
                       std::int64_t started_ms) {
  return examples::with_write_transaction(db_, [&] {
    auto update =
        db_.prepare("UPDATE job_state SET last_run = ?, fence = ? WHERE job = ? AND fence <= ?");
    update.bind(1, run.due_ms).bind(2, token).bind(3, run.job).bind(4, token);
    update.step();
    if (db_.changes() != 1) return false;
    auto effect = db_.prepare(
        "INSERT INTO effects (job, due, token, worker, started_ms, committed_ms)"
        " VALUES (?, ?, ?, ?, ?, ?)");
    effect.bind(1, run.job).bind(2, run.due_ms).bind(3, token).bind(4, worker);
    effect.bind(5, started_ms).bind(6, now_ms());
    effect.step();
    return true;
  });
}

std::int64_t job_store::fence(const std::string& job) {
  auto read = db_.prepare("SELECT fence FROM job_state WHERE job = ?");
  read.bind(1, job);
  return read.step() ? read.column_int64(0) : 0;
}

effect_tally job_store::tally(const std::vector<job_run>& schedule) {
  effect_tally t;
  auto effects = db_.prepare("SELECT COUNT(*) FROM effects WHERE job = ? AND due = ?");
  auto emails = db_.prepare("SELECT COUNT(*) FROM outbox WHERE idempotency_key = ?");
  for (const auto& run : schedule) {
    ++t.runs;
    effects.bind(1, run.job).bind(2, run.due_ms);
    effects.step();
    const auto n = effects.column_int64(0);
    effects.reset();
    t.effects += static_cast<int>(n);
    if (n == 0) ++t.missing;
    if (n > 1) t.duplicates += static_cast<int>(n - 1);
    emails.bind(1, run.key());
    emails.step();
    if (emails.column_int64(0) == 0) ++t.runs_without_email;
    emails.reset();
  }
  t.emails = static_cast<int>(db_.query_int64("SELECT COUNT(*) FROM outbox"));
  return t;
}

}  // namespace job_coordinator
