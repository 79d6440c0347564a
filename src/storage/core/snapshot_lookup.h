#pragma once
// Snapshot names people can type, as git takes commits: wherever a command names a snapshot it
// takes the full name, a unique prefix of it, or a unique prefix (4 or more hex digits) of the
// snapshot's ID. The ID is SHA-256 over "<name>\n<creation time in Unix ms>": it exists on every
// backend (local, CSI, a volume provider), differs for two snapshots of the same data (unlike the
// content digest) and for a name reused after a delete; tables show its first kShortIdLength hex
// digits, `describe` and -o json|yaml all of it. The long name stays the Kubernetes object's.
#include <string>
#include <vector>

#include "storage/core/snapshots.h"

namespace lane::storage {

constexpr size_t kShortIdLength = 8;
constexpr size_t kMinIdPrefix = 4;

std::string snapshot_id(const SnapshotInfo& snapshot);        // 64 hex digits
std::string short_snapshot_id(const SnapshotInfo& snapshot);  // its first kShortIdLength

// Throws UsageError naming `field` unless `ref` can name a snapshot: 1-kMaxSnapshotName lower-case
// letters, digits or '-' (any prefix of a name, so "snap-" too). Checked before any store is opened.
void require_snapshot_reference(const std::string& ref, const std::string& field = "snapshot");

// The snapshot `ref` names among `snapshots`: the one named `ref`, else the one whose name or ID
// starts with it. Throws UsageError for a `ref` no snapshot reference can be (naming `field`) or
// one that matches several (listing them), Error when none matches.
const SnapshotInfo& find_snapshot(const std::vector<SnapshotInfo>& snapshots, const std::string& ref,
                                  const std::string& field = "snapshot");

// find_snapshot over the store's snapshots; returns the full name.
std::string resolve_snapshot(SnapshotStore& store, const std::string& ref, const std::string& field = "snapshot");

// The one snapshot job `job` took (SnapshotInfo::job); Error when it took none or several (listing them).
const SnapshotInfo& snapshot_of_job(const std::vector<SnapshotInfo>& snapshots, const std::string& job);

// A short label for each snapshot of a graph (`ids[i]`: names[i]'s short ID, "" when it was
// deleted): the ID and the part of the name that differs from the others' (what follows the
// longest '-'-bounded prefix it shares with another), `width` characters in all (the dashboard's
// node holds 21): "3f2a9c1e …retrain-re…" rather than "snap-pvc-download-tu…" for every one.
std::vector<std::string> snapshot_labels(const std::vector<std::string>& names, const std::vector<std::string>& ids,
                                         size_t width = 21);

}  // namespace lane::storage
