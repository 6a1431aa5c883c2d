package activities

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/sated-dev/sated/internal/search"
)

func badInput(format string, a ...any) error {
	msg := fmt.Sprintf(format, a...)
	return temporal.NewNonRetryableApplicationError(msg, "BadInput", nil)
}

// ProviderUnusable marks a search error no other query can avoid (an empty corpus, a provider
// this worker lacks): the run stops searching at once and says why.
const ProviderUnusable = "ProviderUnusable"

func unusable(format string, a ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, a...), ProviderUnusable, nil)
}

// classify turns bad-input errors from the libraries into non-retryable errors and leaves the
// rest to Temporal's retry policy.
func classify(what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, search.ErrBadInput) {
		return temporal.NewNonRetryableApplicationError(what+": "+err.Error(), "BadInput", err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
