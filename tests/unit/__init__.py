"""Unit tier: the pure core on plain values. May run git only as a differ of bytes
(``oracle_gate.git.diff_blob_pairs``); no repositories, no coverage runs, no subprocess CLI."""
