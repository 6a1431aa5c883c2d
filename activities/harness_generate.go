package activities

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/sated-dev/sated/internal/corpus"
	"github.com/sated-dev/sated/internal/harness"
	"github.com/sated-dev/sated/internal/search"
	"github.com/sated-dev/sated/internal/text"
)

// HarnessCorpus is the part of the local corpus deterministic expansion reads: it searches
// with what the expansion research found, and walks the pages when the research found nothing.
// *corpus.Index satisfies it.
type HarnessCorpus interface {
	Search(ctx context.Context, query string, limit int) ([]search.Result, error)
	Passage(ctx context.Context, id string) (corpus.Passage, error)
	Passages(ctx context.Context, pageID string) ([]corpus.Passage, error)
	Each(ctx context.Context, fn func(corpus.Document) error) error
}

// Bounds on what generation reads, so an expansion stays cheap on a large corpus.
const (
	findingsMax        = 6  // research sentences searched
	findingHits        = 5  // corpus results per finding
	walkPassagesMax    = 60 // passages read by the walk
	findingMinContents = 4  // content words a research sentence needs to be searched
)

var errWalkDone = errors.New("enough passages")

// citation marks a sentence that states something a source said ("... [2].").
var citation = regexp.MustCompile(`\[\d+\]`)

// Findings are the research report's sentences worth searching the corpus with: cited prose
// (not headings, quotes of the report's own notes, or code) with enough content words; at most
// findingsMax, in report order.
func Findings(markdown string) []string {
	var out []string
	for _, s := range text.Sentences(markdown) {
		s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "-*+ "))
		if s == "" || text.IsCode(s) || strings.HasPrefix(s, "#") || strings.HasPrefix(s, "|") || strings.HasPrefix(s, ">") ||
			strings.HasPrefix(s, "[") || strings.Contains(s, "://") { // headings, tables, notes, the source list
			continue
		}
		if !citation.MatchString(s) || len(text.Distinct(text.Content(s))) < findingMinContents {
			continue
		}
		out = append(out, s)
		if len(out) == findingsMax {
			break
		}
	}
	return out
}

// candidatePassages lists the passages generation may use: first those the research findings
// lead to (each with its finding), then the corpus walked in URL order.
func candidatePassages(ctx context.Context, c HarnessCorpus, research string) ([]harness.SourcePassage, error) {
	var out []harness.SourcePassage
	seen := map[string]bool{}
	add := func(p corpus.Passage, found string) {
		if !seen[p.ID] {
			seen[p.ID] = true
			out = append(out, harness.SourcePassage{ID: p.ID, Page: p.PageID, Path: p.Path(), Text: p.Text, Found: found})
		}
	}
	for _, f := range Findings(research) {
		rs, err := c.Search(ctx, f, findingHits)
		if errors.Is(err, search.ErrBadInput) {
			continue // a finding with no searchable words
		}
		if err != nil {
			return nil, fmt.Errorf("corpus search for an expansion finding: %w", err)
		}
		for _, r := range rs {
			if p, err := c.Passage(ctx, r.DocID); err == nil {
				add(p, f)
			}
		}
	}
	walked := 0
	err := c.Each(ctx, func(d corpus.Document) error {
		ps, err := c.Passages(ctx, d.ID)
		if err != nil {
			return err
		}
		for _, p := range ps {
			add(p, "")
			if walked++; walked >= walkPassagesMax {
				return errWalkDone
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errWalkDone) {
		return nil, fmt.Errorf("walking the corpus: %w", err)
	}
	return out, nil
}

// generated adds to det the benchmarks generated from the corpus, citing the research
// findings that led to them; with no corpus, or nothing uncovered, det is left as it is.
func (a *HarnessActivities) generated(ctx context.Context, in HarnessProposeInput, det *HarnessProposeOutput) error {
	if a.corpus == nil {
		return nil
	}
	ps, err := candidatePassages(ctx, a.corpus, in.Research)
	if err != nil {
		return err
	}
	bs := harness.GenerateBenchmarks(in.Harness, ps)
	if len(bs) == 0 {
		return nil
	}
	det.Proposal.NewBenchmarks = append(det.Proposal.NewBenchmarks, bs...)
	cited := 0
	for _, b := range bs {
		if strings.Contains(b.Origin, "expansion research found") {
			cited++
		}
	}
	why := fmt.Sprintf("%d new benchmark(s) from corpus passages no enabled benchmark covers (%d led to by the expansion research's findings)", len(bs), cited)
	if det.Proposal.Rationale == "" {
		det.Proposal.Rationale = "deterministic: " + why
	} else {
		det.Proposal.Rationale += "; " + why
	}
	return nil
}
