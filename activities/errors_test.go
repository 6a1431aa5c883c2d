package activities

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"

	"github.com/sated-dev/sated/internal/search"
)

func TestClassifyMakesLibraryBadInputNonRetryable(t *testing.T) {
	require.Equal(t, "BadInput", ErrBadInput, "workflows' retry policies name this type")

	cause := fmt.Errorf("limit 0: %w", search.ErrBadInput)
	var appErr *temporal.ApplicationError
	require.ErrorAs(t, classify("search brave", cause), &appErr)
	require.Equal(t, ErrBadInput, appErr.Type())
	require.True(t, appErr.NonRetryable())
	require.Equal(t, "search brave: limit 0: bad input", appErr.Message())
	require.ErrorIs(t, appErr, search.ErrBadInput, "the cause is kept")

	other := classify("memory recall", errors.New("timeout"))
	require.False(t, errors.As(other, &appErr), "other errors are left to the retry policy")
	require.EqualError(t, other, "memory recall: timeout")
	require.NoError(t, classify("x", nil))
}
