// Package devloop holds the offline tuning loop for the extractive answer; it has only tests,
// all opt-in (SATED_DEVLOOP=1) over the dev sets' corpora:
//   - TestLoop: plan, search rounds, answer and the BM25 baseline per question, and the
//     fixed-2 / fixed-5 / saturation comparison;
//   - TestRank, TestLearned: how well single signals (search rank, BM25 among the evidence,
//     title cover, centroid...) tell the evidence passages that hold a gold fact (AUC), and the
//     recall of quoting whole passages in each signal's order, beside the oracle order;
//   - TestSentences: the same within the passages that hold a fact, per sentence;
//   - TestPrecision: per search round and rank, the share of results holding a gold fact;
//   - TestProbe: the top passages for one QUERY.
//
// SET picks one set (sqlite, python, pg and go run by default; the held-out git, apache,
// pgdocs, pgblind and pgblind2 sets only when named; the last three share pg's corpus, and
// pgblind2 is the blind one: read its summary lines, not its reports), BUDGET the findings
// budget, LIMIT the results per search. TestLoop also counts the cited sources that are
// release notes; NEIGH="n before after frac" adds the passages around the n best-ranked
// results to the evidence (an experiment: evidence recall rises a little, report recall does
// not).
package devloop
