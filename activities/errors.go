package activities

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/temporal"

	"github.com/sated-dev/sated/internal/search"
)

// ErrBadInput is the error type of a failure no retry can fix (an empty query, an unknown
// method, a refused commit). Workflows list it in their retry policies' NonRetryableErrorTypes,
// so its value is part of recorded histories.
const ErrBadInput = "BadInput"

// badInput is the one way an activity refuses its input; cause may be nil.
func badInput(cause error, format string, a ...any) error {
	return temporal.NewNonRetryableApplicationError(fmt.Sprintf(format, a...), ErrBadInput, cause)
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
		return badInput(err, "%s: %v", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// Readable is what a person needs of a Temporal error: the message of the application error at
// its root, without the activity and workflow wrappers and the type annotations.
func Readable(err error) string {
	if err == nil {
		return ""
	}
	var ae *temporal.ApplicationError
	if errors.As(err, &ae) && ae.Message() != "" {
		return ae.Message()
	}
	return err.Error()
}
