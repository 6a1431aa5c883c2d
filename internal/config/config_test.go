package config

import (
	"math"
	"strings"
	"testing"
)

func TestDefaultsAreTheDesignsAndValid(t *testing.T) {
	c := Research{}.WithDefaults()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Strategy != StrategySaturation || c.MinRounds != 2 || c.MaxRounds != 5 || *c.NoveltyThreshold != 3 ||
		c.KnowledgeCap != 1500 || *c.Epsilon != 0.15 || c.QualityFloor != 1800 || *c.EnrichCount != 3 ||
		*c.EnrichOverlapCut != 0.6 || c.Provider != "corpus" || c.Novelty != NoveltyAnswer || c.FixedRounds != 2 ||
		c.FindingsBudget != 8000 {
		t.Fatalf("defaults drifted from the design: %+v", c)
	}
}

func TestZeroIsKeptWhereItIsMeaningful(t *testing.T) {
	zero, none := 0.0, 0
	c := Research{Epsilon: &zero, NoveltyThreshold: &zero, EnrichCount: &none, EnrichOverlapCut: &zero}.WithDefaults()
	if *c.Epsilon != 0 || *c.NoveltyThreshold != 0 || *c.EnrichCount != 0 || *c.EnrichOverlapCut != 0 {
		t.Fatalf("explicit zeros were replaced by defaults: %+v", c)
	}
}

func TestValidateNamesTheField(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	i := func(v int) *int { return &v }
	cases := []struct {
		c    Research
		want string
	}{
		{Research{Strategy: "forever"}, "unknown strategy"},
		{Research{FixedRounds: 21}, "fixed rounds 21"},
		{Research{MinRounds: 4, MaxRounds: 3}, "min rounds 4 is above max rounds 3"},
		{Research{MaxRounds: 25}, "max rounds 25"},
		{Research{NoveltyThreshold: f(-1)}, "novelty threshold -1"},
		{Research{NoveltyThreshold: f(10.5)}, "novelty threshold 10.5"},
		{Research{KnowledgeCap: 50}, "knowledge cap 50"},
		{Research{Epsilon: f(1.01)}, "epsilon 1.01"},
		{Research{QualityFloor: -5}, "quality floor -5"},
		{Research{EnrichCount: i(-1)}, "enrich count -1"},
		{Research{EnrichOverlapCut: f(2)}, "enrich overlap cut 2"},
		{Research{Provider: "bing"}, `unknown provider "bing"`},
		{Research{ResultsPerQuery: 51}, "results per query 51"},
		{Research{Novelty: "gut"}, `unknown novelty method "gut"`},
		{Research{MaxModelCalls: -1}, "model budget"},
	}
	for _, c := range cases {
		err := c.c.WithDefaults().Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %q", c.c, err, c.want)
		}
	}
	for _, ok := range []Research{{Epsilon: f(0)}, {Epsilon: f(1)}, {NoveltyThreshold: f(10)}, {MinRounds: 5, MaxRounds: 5}} {
		if err := ok.WithDefaults().Validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
}

func TestValidateQuestion(t *testing.T) {
	for q, ok := range map[string]bool{"": false, "   \n": false, "why?": true, strings.Repeat("a", 4096): true, strings.Repeat("a", 4097): false} {
		if err := ValidateQuestion(q); (err == nil) != ok {
			t.Errorf("len %d: %v", len(q), err)
		}
	}
}

// NaN compares false with everything: a range check written as "out of range" let it through.
func TestNaNIsRefused(t *testing.T) {
	nan := math.NaN()
	for name, c := range map[string]Research{
		"threshold":   {NoveltyThreshold: &nan},
		"epsilon":     {Epsilon: &nan},
		"overlap cut": {EnrichOverlapCut: &nan},
	} {
		if err := c.WithDefaults().Validate(); err == nil {
			t.Errorf("%s NaN passed validation", name)
		}
	}
}
