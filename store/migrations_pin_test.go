package store

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"testing"
)

// releasedMigrations pins every released migration by its sha256. A
// database that ran a migration never runs it again, so an edit to one
// reaches only new databases and the two kinds drift apart: a released
// migration is never edited. Change the schema with a new migration
// (both dialect folders, the next free number) and pin it here once it
// is released.
var releasedMigrations = map[string]string{
	"migrations/0001_init.sql":                       "66b99b679608c8e042c0937cbb4d5f502d45901578cdd2f41ccb2ade9416f04b",
	"migrations/0002_drift.sql":                      "985770a702357f864206110b78bb50a6b59086c0b5b15f71387991251ca0f9df",
	"migrations/0003_scores_current.sql":             "f45dc2928b690cccef8f690dbc1d8886382ff3883f5f6bfa86704c012cd09369",
	"migrations/0004_event_groups.sql":               "799ec08f5f629132b0d156395b4e0f30f8f2d5154034ad21f968b6670e162515",
	"migrations/0005_label_pending.sql":              "0df3a872319f592b5fdb75e6aafcef74f21b289049713539d2ffe35e7c99ee6c",
	"migrations/0006_trace_model.sql":                "4cb35baa8e58b27f8d63ab5f7c7bd0af9dabe3316144786b51d7206b8270bc34",
	"migrations/0007_rater_labels.sql":               "9cabfed2c698faf986a1945c32efa47a2409e46fc7631bd07825fcbe59a7d5d7",
	"migrations/0008_reservations.sql":               "5c8b9114c53e6d33ef8a800fa32b4cdbcd4e46ff610f687b056dc40e12cec7ef",
	"migrations/0009_score_metrics.sql":              "0386350b9f428d334c23f5f1be9690a8b7c3d39960744196c91064a2d3da5232",
	"migrations/0011_peer_marks.sql":                 "2505272b57b9dcfffc3b41ed1553bd50661d0ea9fe615c5390d48fc8a4aa98ac",
	"migrations/0012_score_result.sql":               "d98690e403c30f6f7edf5eea539d4a661cfc038faca5cfa39cf520fb55459996",
	"migrations/0013_step_bodies.sql":                "2d469be62fd4517ad7fcd08ecb1ef0f9b4e71eaa507dc7867627ae4118e2c384",
	"migrations/0014_steps_narrow.sql":               "52ec3fe10fd32c9fc39b8f5c78cae7e20c2457b8ed9d7b0adec769289b04e112",
	"migrations/0015_score_state.sql":                "b99014727ac2e76f778a214627c314c6a5db8681c500b1f81baa68af9090b003",
	"migrations/0016_steps_tools.sql":                "39f8a11811997473c1258311c1b2e5d1008897eac6dad6e97658bd96671bf958",
	"migrations/0018_step_search.sql":                "8222ef82ce8413f8188d7a6c56f30e2129b6eeb3fbe4021cafa413df8e1c8ad8",
	"migrations/0019_report_history.sql":             "6b573eea3303b7317302f60fa4f4209c66527dd826f5bf41ac7540c32800e151",
	"migrations/0020_live_spans.sql":                 "abda7a514e8930cc845a74c9d84a9d5172d8ac2cb453cbb49b421875a13029ca",
	"migrations/0021_judge_model.sql":                "0febe903e1c76c0b729f024b33c5c34ee4b83ec99311d4118c4cc5ad54a6f089",
	"migrations/0024_search_bound.sql":               "dbd8322adaf66899f4945997605f4fad25f2a040dd2c1996c814f68102ab7ad6",
	"migrations/0025_contract_teachers.sql":          "ac02781a19f2ca537683592e8167ff02e420e90b85400fa2a48e0397cd748e6e",
	"migrations/0026_queue_class_rule.sql":           "7406e9b820d00e409e17ca485505b315fa69ec793a8d2c4f9466312bfe462fd9",
	"migrations/0028_stale_indexed.sql":              "b349c312eb87ee24dffc5153c2e40c762afd7312ffb8959bfc3ffe75b41e4583",
	"migrations/0032_import_queue.sql":               "2821cd836f1fe74325398d02a8bc46797914241672362ffb014967a4d678a922",
	"migrations/0034_queue_counts.sql":               "216654014fc4754093d72469729e39d372b323f07c410a5823a6b2544fb0d4b5",
	"migrations/0035_id_search.sql":                  "83bd9e9d75803c1f0b2d39a8946a5b2d2211f613ea88e6bc7aed36b1ad6f1684",
	"migrations/0038_edit_triggers.sql":              "89bc7f719c40b24b62c69154efbe92d530241110db71fa7b38cd973dfc44b820",
	"migrations/0039_search_once.sql":                "4d5bb99c2cc77db11ec73b44b95622d88c774339c6694c7cc8f5cc71c9af7b97",
	"migrations/0041_cold_reads.sql":                 "e41658bbd4aa190559b4d5a06e33d8be09032d3b4377ceaf2a8a4035173f910c",
	"migrations/0045_body_parts.sql":                 "7ea6344502c5aad8f3e1774b8c8b67a3053d85b7af54d131f3f8b8efa0113fae",
	"migrations/0046_bulk_search.sql":                "4483d39927c9b4577a04403f930ba3f2aa5302b4ed5626bdde8775b9af1ee9bd",
	"migrations/0047_trace_search.sql":               "e806a5f07c9da2c5c008fa5914fa42cb850cef2d5488608233129f22ede24297",
	"migrations/0048_free_now.sql":                   "19c84747b587157a4018e7b4aa0edafb0e20ee604d9be781b2d7bd7c7c0ff1e8",
	"migrations/0049_queued_index.sql":               "0a427fd7015bc12aec422997b7c9acfa20f50b38d916a8be51963daae5825d26",
	"migrations/postgres/0001_init.sql":              "87bb1e7c44988ac8fdc075f6d35b2d79c340248661e3605682a4ba9cad7f4a08",
	"migrations/postgres/0002_drift.sql":             "e52cbce1323da39774221cda9066f4f14f4d2edd00c1edb7fd2717a3aab109fd",
	"migrations/postgres/0003_scores_current.sql":    "9f4cd94eab7a5892d2a18d6e9fe73aaa4b17ba1076568dd402943167214ea0e1",
	"migrations/postgres/0004_event_groups.sql":      "c3be94617dcf05f394a067b063d5c43ad9cd97b3edc25bb6038e995640bf73cd",
	"migrations/postgres/0005_label_pending.sql":     "54a495a181844cd0e79cb57effe201f4825d88d5c81e027d86b4f23d98c1f065",
	"migrations/postgres/0006_trace_model.sql":       "d42f81073506c550a361b1597fe1e58915ec62de43d12a2036160b7d7c3aa361",
	"migrations/postgres/0007_rater_labels.sql":      "0c1c8d12a5bd11076a1badc48d51e9cab861f271b39ec0b7b07e5416e81c667b",
	"migrations/postgres/0008_reservations.sql":      "842a495ce63f89438f032ee6388160ef0cef79aa5a80a098280d693cf53087fa",
	"migrations/postgres/0009_score_metrics.sql":     "5d11588aa8de6164768ff7114bc3e2aaa23080774fb26a0ff94b117bfce6f10c",
	"migrations/postgres/0011_peer_marks.sql":        "8c3c3b61b4781efb437898bfba1c44a185036c337f090fc179165c1c94e3462f",
	"migrations/postgres/0012_score_result.sql":      "559d8b04207353a52f5b4e34ab44cce7aa756df417a3bae99f3608406e33461c",
	"migrations/postgres/0013_step_bodies.sql":       "9bc4f8413c47e5e5ab0ba18700d908c93880e6d9846565e6caa4805c6131a80d",
	"migrations/postgres/0014_steps_narrow.sql":      "81e8c1d4e28fc4d5a784e8367c2d2a8ff3ffab89652ffd01025621487673fb5e",
	"migrations/postgres/0015_score_state.sql":       "81fa7658030914897b3fd3a166fb0e256f283cde3d58df3d51b3d92d37c326be",
	"migrations/postgres/0016_steps_tools.sql":       "8c1e3dcccd2adf951a716138c919aeecff0aaa170ef612eea1028b22a36198f3",
	"migrations/postgres/0018_step_search.sql":       "54d5d7fae53c3cddfc04db6bcda80b14a098e50c65137e0fad1099b2349b943a",
	"migrations/postgres/0019_report_history.sql":    "a89040c56308933d39e1e6de044bf24600ebcf5eee74856ea7e75a69572c0f64",
	"migrations/postgres/0020_live_spans.sql":        "33cc953c8e138551bc7cdb6febad9c14b733b09a11e546ca5f75c0d33ffab153",
	"migrations/postgres/0021_judge_model.sql":       "d37ee131de1e69bbd64e2486386b8e611ed811a3825c079299d40a159f0f075f",
	"migrations/postgres/0024_search_bound.sql":      "32aa567f52d4e0363c432795cf9d793ed29c985944e9f6dcc1b7eeee36a34489",
	"migrations/postgres/0025_contract_teachers.sql": "d739aed2ec8fac3eaa51232785bf1ef243194564a301e6975fd5ff05195b53f0",
	"migrations/postgres/0026_queue_class_rule.sql":  "6bdac4eb14f068a29562550c2b267c274afa72028605e9b7773d8ca6a2f49b7c",
	"migrations/postgres/0028_stale_indexed.sql":     "33eeb68edd6bbf17fd7339c477ad9077402861db793768a512bc6e6cc7324f58",
	"migrations/postgres/0032_import_queue.sql":      "c96930c7dbe5b0bf1ecf2b2e4b858945828c1a40636ad6a0fa5b706d86c79cfb",
	"migrations/postgres/0034_queue_counts.sql":      "3c5c5c35d1012d5658d3dfa715f5d6bb90381e098f90a34e8a40295a5d6d7499",
	"migrations/postgres/0035_id_search.sql":         "40122a0c87bd3cbaeed828a86bc8f54f86e30ddb543d5120b8c086ae10ce64af",
	"migrations/postgres/0038_edit_triggers.sql":     "2112174eaf82a5e4a65b842402c2778048954a2a133f7b7e3df300e9d5cd092e",
	"migrations/postgres/0039_search_once.sql":       "6dd9fc25ccebce358fc9f337c97d306ddfc9bb4b6bfef139e8f7f44f42d074c4",
	"migrations/postgres/0041_cold_reads.sql":        "67d710f06de3bc963fec22f98b9c69e16395ebcec7dfd89db09e4385afd41c11",
	"migrations/postgres/0045_body_parts.sql":        "cd54b3df78d24c7cee2754de563f2ce728ad9bba1df0f65b7e09fe05d6f564db",
	"migrations/postgres/0046_bulk_search.sql":       "0f03676dc2768b2a6eecb20377c5871811cfd5c95aa78c91d57dc634ea3ed73d",
	"migrations/postgres/0047_trace_search.sql":      "0370112c421d53ccda5e98f9186ab2a7f3af94deb825071da7b712305a447efb",
	"migrations/postgres/0048_free_now.sql":          "4b45c49380b74444b872222cbb8d577ea6397d7c046ec031a354aacc7ae4d5e2",
	"migrations/postgres/0049_queued_index.sql":      "0a427fd7015bc12aec422997b7c9acfa20f50b38d916a8be51963daae5825d26",
}

// lastReleasedMigration is the highest number pinned above: every
// migration up to it must be pinned, in both dialects.
const lastReleasedMigration = 21

func TestReleasedMigrationsAreNeverEdited(t *testing.T) {
	seen := map[string]bool{}
	err := fs.WalkDir(migrations, "migrations", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) != ".sql" {
			return err
		}
		n, err := strconv.Atoi(strings.SplitN(path.Base(p), "_", 2)[0])
		if err != nil {
			t.Errorf("%s: a migration's name starts with its number", p)
			return nil
		}
		b, err := fs.ReadFile(migrations, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		got := hex.EncodeToString(sum[:])
		want, pinned := releasedMigrations[p]
		switch {
		case pinned && got != want:
			t.Errorf("%s was edited (sha256 %s, released as %s). Released migrations are append-only: "+
				"databases that already ran it will never see the change. Restore it and add a new migration "+
				"(in migrations/ and migrations/postgres/) instead", p, got, want)
		case !pinned && n <= lastReleasedMigration:
			t.Errorf("%s is numbered %d, at or below the last released migration %d: give it the next free number", p, n, lastReleasedMigration)
		}
		seen[p] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range releasedMigrations {
		if !seen[p] {
			t.Errorf("%s was released and is gone: released migrations are never removed or renamed", p)
		}
	}
}
