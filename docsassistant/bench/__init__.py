"""Benchmarks: ingestion throughput and overhead, search latency, HNSW at scale.

These print figures; they are not tests. Each function returns a plain dict (the CLI
prints it as a table and can write it as JSON).

* `bench_ingest` indexes a corpus into fresh components, times the whole pipeline,
  re-embeds exactly the same texts (same groups, same batch size) with the model alone,
  re-ingests the unchanged corpus, and reads the process's peak RSS.
* `bench_search` times warm `search_docs` calls (query embedding included) over the
  indexed store, without and with a component filter, then dense-only, text-only and
  the query embedding alone (to see where the time goes), and the recall of the real
  HNSW index against exact ranking (read-only).
* `bench_synthetic` builds a separate `bench_chunks` table of N vectors derived from the
  store's real embeddings, builds HNSW on it, and measures ANN latency and recall@10
  against exact search. It never touches the real `chunks` table and drops its own.

Modules: `measure` (targets, CPU, RSS, percentiles), `ingest`, `search`, `synthetic`, `embedders`
(`bench ingest --embedders`), `scale` (`bench inflate` / `deflate`).
"""
