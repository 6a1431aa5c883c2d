package investigate

import "testing"

func TestMergeModelLeads(t *testing.T) {
	texts := []string{"The Go Team at Google wrote RFC 9110 notes.", "Russ Cox of Google explained the memory model."}
	pattern := Breadcrumbs(texts, 0)
	model := []Breadcrumb{
		{Text: "Russ Cox", Kind: KindPerson},     // present: kept
		{Text: "Rob Pike", Kind: KindPerson},     // absent from the texts: a model invention
		{Text: "Google", Kind: KindOrganisation}, // present
		{Text: "memory model", Kind: "concept"},  // unknown kind
		{Text: "RFC 9110", Kind: KindIdentifier}, // already a pattern lead
	}
	got := MergeModelLeads(pattern, model, texts)
	seen := map[string]int{}
	for i, b := range got {
		seen[b.Text] = i
		if b.Text == "Rob Pike" || b.Text == "memory model" {
			t.Fatalf("kept %q: %+v", b.Text, got)
		}
	}
	if _, ok := seen["Russ Cox"]; !ok {
		t.Fatalf("a model lead present in the texts was dropped: %+v", got)
	}
	if got[0].Kind != KindIdentifier {
		t.Fatalf("identifiers rank first: %+v", got)
	}
	n := 0
	for _, b := range got {
		if NormalizeName(b.Text) == NormalizeName("RFC 9110") {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("RFC 9110 listed %d times", n)
	}
}
