package activities

import (
	"context"

	"github.com/sated-dev/sated/internal/search"
)

// ReferencesInput asks for the cross-references of a round's results: the documents they link
// to. Query chooses the snippets; IDs are the results' DocIDs, best first.
type ReferencesInput struct {
	Provider string   `json:"provider"`
	Query    string   `json:"query"`
	IDs      []string `json:"ids"`
	Per      int      `json:"per"`
}

// ReferencesOutput is the linked documents as results, in the order of the results that link
// to them; none when the provider's documents do not link to each other.
type ReferencesOutput struct {
	Results []search.Result `json:"results"`
}

// maxReferenceIDs bounds the results one call follows.
const maxReferenceIDs = 50

// FollowReferences follows the cross-references of search results ("See Section 23.6"): for
// each result, up to Per of the documents it links to that are not among the results. A
// provider that cannot tell links (search.Referencer) has none to follow.
func (a *Activities) FollowReferences(ctx context.Context, in ReferencesInput) (ReferencesOutput, error) {
	if in.Per < 0 || in.Per > 10 {
		return ReferencesOutput{}, badInput(nil, "references: per %d out of range [0,10]", in.Per)
	}
	if len(in.IDs) > maxReferenceIDs {
		return ReferencesOutput{}, badInput(nil, "references: %d ids, at most %d", len(in.IDs), maxReferenceIDs)
	}
	p, err := a.provider("references", in.Provider)
	if err != nil {
		return ReferencesOutput{}, err
	}
	r, ok := p.(search.Referencer)
	if !ok || in.Per == 0 || len(in.IDs) == 0 {
		return ReferencesOutput{}, nil
	}
	rs, err := r.References(ctx, in.Query, in.IDs, in.Per)
	if err != nil {
		return ReferencesOutput{}, classify("references "+in.Provider, err)
	}
	settle(rs, in.Provider)
	return ReferencesOutput{Results: rs}, nil
}
