package activities

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sated-dev/sated/internal/config"
	"github.com/sated-dev/sated/internal/knowledge"
	"github.com/sated-dev/sated/internal/llm"
	"github.com/sated-dev/sated/internal/novelty"
	"github.com/sated-dev/sated/internal/report"
	"github.com/sated-dev/sated/internal/research"
	"github.com/sated-dev/sated/internal/search"
)

// NoveltyInput asks how new a round's unseen results are: against all evidence so far for the
// learning method, against the knowledge state for the others.
type NoveltyInput struct {
	Method    string          `json:"method"`
	Knowledge string          `json:"knowledge"`
	Results   []search.Result `json:"results"`
	// Question, Aspects, Known (title and snippet of every accepted source) and KnownRounds feed
	// the learning method.
	Question    string   `json:"question,omitempty"`
	Aspects     []string `json:"aspects,omitempty"`
	Known       []string `json:"known,omitempty"`
	KnownRounds int      `json:"known_rounds,omitempty"`
	// Sources (every accepted result so far, in the order they joined, each with the round that
	// found it; an older caller sent the results alone, round 0), Rounds (the rounds so far and
	// this one, whose rankings fuse into the prior as Synthesize fuses them) and Budget feed the
	// answer method, with Question and Aspects.
	Sources []Source      `json:"sources,omitempty"`
	Rounds  []RoundRecord `json:"rounds,omitempty"`
	Budget  int           `json:"budget,omitempty"`
}

// NoveltyOutput is the score (0-10) and how it was reached.
type NoveltyOutput struct {
	Score    float64 `json:"score"`
	Method   string  `json:"method"`
	Fallback string  `json:"fallback,omitempty"`
	Usage    Usage   `json:"usage"`
}

// AssessNovelty scores a round's unseen results against the knowledge state (0-10).
func (a *Activities) AssessNovelty(ctx context.Context, in NoveltyInput) (NoveltyOutput, error) {
	text := ResultsText(in.Results)
	heuristic := func(reason string) (NoveltyOutput, error) {
		return NoveltyOutput{Score: novelty.Heuristic(text, in.Knowledge), Method: config.NoveltyHeuristic, Fallback: reason}, nil
	}
	switch in.Method {
	case config.NoveltyLearning:
		return learningNovelty(in), nil
	case config.NoveltyAnswer:
		return a.answerNovelty(ctx, in), nil
	case config.NoveltyHeuristic, "":
		return heuristic("")
	case config.NoveltyModel:
		if a.model == nil || !a.model.Configured(llm.Evaluator) {
			return heuristic("no evaluator model configured")
		}
		return a.modelNovelty(ctx, in, text)
	case config.NoveltyEmbedding:
		if a.model == nil || !a.model.Configured(llm.Embedder) {
			return heuristic("no embedding model configured")
		}
		return a.embeddingNovelty(ctx, in)
	default:
		return NoveltyOutput{}, badInput(nil, "novelty: unknown method %q", in.Method)
	}
}

func (a *Activities) modelNovelty(ctx context.Context, in NoveltyInput, text string) (NoveltyOutput, error) {
	system, prompt := llm.NoveltyPrompt(in.Knowledge, promptSources(in.Results))
	answer, u, err := a.model.Generate(ctx, llm.NoveltyJudge, system, prompt)
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return NoveltyOutput{Score: novelty.Heuristic(text, in.Knowledge), Method: config.NoveltyHeuristic, Fallback: reason, Usage: u}, nil
		}
		return NoveltyOutput{}, err
	}
	score, ok := llm.ParseNovelty(answer)
	out := NoveltyOutput{Score: score, Method: config.NoveltyModel, Usage: u}
	if !ok {
		out.Score = llm.NeutralNovelty
		out.Fallback = fmt.Sprintf("evaluator answered %q with no integer; scored %d", search.Truncate(strings.TrimSpace(answer), 60), llm.NeutralNovelty)
	}
	return out, nil
}

func (a *Activities) embeddingNovelty(ctx context.Context, in NoveltyInput) (NoveltyOutput, error) {
	known := knowledge.Bullets(in.Knowledge)
	texts := make([]string, 0, len(in.Results)+len(known))
	for _, r := range in.Results {
		texts = append(texts, r.Title+". "+r.Snippet)
	}
	texts = append(texts, known...)
	vecs, u, err := a.model.Embed(ctx, texts)
	if err != nil {
		if reason, ok := lastAttemptDown(ctx, err); ok {
			return NoveltyOutput{Score: novelty.Heuristic(ResultsText(in.Results), in.Knowledge), Method: config.NoveltyHeuristic, Fallback: reason, Usage: u}, nil
		}
		return NoveltyOutput{}, err
	}
	if len(vecs) != len(texts) {
		return NoveltyOutput{Score: novelty.Heuristic(ResultsText(in.Results), in.Knowledge), Method: config.NoveltyHeuristic, Usage: u,
			Fallback: fmt.Sprintf("embedder returned %d vectors for %d texts; scored heuristically", len(vecs), len(texts))}, nil
	}
	n := len(in.Results)
	return NoveltyOutput{Score: novelty.Embedding(vecs[:n], vecs[n:]), Method: config.NoveltyEmbedding, Usage: u}, nil
}

// learningNovelty scores the question-relevant information the round adds to all evidence.
func learningNovelty(in NoveltyInput) NoveltyOutput {
	fresh := make([]string, len(in.Results))
	for i, r := range in.Results {
		fresh[i] = r.Title + ". " + r.Snippet
	}
	question := in.Question
	if question == "" {
		question = in.Knowledge // an older caller: judge relevance by what is known
	}
	out := novelty.Learning(novelty.LearningInput{Question: question, Aspects: in.Aspects, Fresh: fresh,
		Known: in.Known, KnownRounds: in.KnownRounds})
	return NoveltyOutput{Score: out.Score, Method: config.NoveltyLearning}
}

// answerNovelty writes the extractive findings from every accepted source and the round's new
// ones, as Synthesize would (passages read whole from the corpus, the rounds' fused ranking as
// the prior, searchPrior), and scores the round by the share of the findings its new passages wrote
// (novelty.ShareScore: 3 for a tenth).
func (a *Activities) answerNovelty(ctx context.Context, in NoveltyInput) NoveltyOutput {
	// each source with the round that found it, as Synthesize reads them: this round's are the
	// last round record's (none when an older caller sent sources without rounds, which weighs
	// every source alike)
	sources := make([]research.Source, 0, len(in.Sources)+len(in.Results))
	rounds := len(in.Rounds) > 0 && !slices.ContainsFunc(in.Sources, func(s Source) bool { return s.Round == 0 })
	for _, s := range in.Sources {
		sources = append(sources, research.Source{N: len(sources) + 1, Result: s.Result, Round: s.Round})
	}
	known := len(sources)
	for _, r := range in.Results {
		s := research.Source{N: len(sources) + 1, Result: r}
		if rounds {
			s.Round = in.Rounds[len(in.Rounds)-1].Round
		}
		sources = append(sources, s)
	}
	a.readPassages(ctx, sources)
	ans := report.Answer(report.AnswerInput{Question: in.Question, Aspects: in.Aspects, Sources: sources,
		Budget: in.Budget, Prior: searchPrior(in.Rounds, sources), Topical: a.topical(ctx, sources)})
	share := report.FreshShare(ans, func(n int) bool { return n > known })
	return NoveltyOutput{Score: novelty.ShareScore(share), Method: config.NoveltyAnswer}
}

// ResultsText is the text novelty and compression look at: titles and snippets.
func ResultsText(rs []search.Result) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Title)
		b.WriteString(". ")
		b.WriteString(r.Snippet)
		b.WriteString("\n")
	}
	return b.String()
}
