package activities

import (
	"context"
	"errors"
	"fmt"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
)

// The custom search attributes sated's workflows set, so the Temporal UI's workflow list can
// show and filter runs by strategy and state (SatedState="awaiting-approval" lists the
// expansions waiting for a person).
const (
	SearchAttrStrategy = "SatedStrategy"
	SearchAttrState    = "SatedState"
)

// EnsureSearchAttributes registers sated's search attributes in the namespace when they are
// missing, and reports whether both are there. A server that refuses (no permission, a cloud
// namespace managed elsewhere) is not an error: the workflows then set no attributes, since
// setting an unregistered one fails their workflow tasks.
func EnsureSearchAttributes(ctx context.Context, c client.Client, namespace string) (bool, error) {
	want := map[string]enumspb.IndexedValueType{
		SearchAttrStrategy: enumspb.INDEXED_VALUE_TYPE_KEYWORD,
		SearchAttrState:    enumspb.INDEXED_VALUE_TYPE_KEYWORD,
	}
	have := func() (bool, error) {
		res, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
		if err != nil {
			return false, err
		}
		for k, t := range want {
			if got, ok := res.CustomAttributes[k]; !ok || got != t {
				return false, nil
			}
		}
		return true, nil
	}
	ok, err := have()
	if err != nil || ok {
		return ok, err
	}
	_, err = c.OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{Namespace: namespace, SearchAttributes: want})
	var exists *serviceerror.AlreadyExists
	if err != nil && !errors.As(err, &exists) {
		return false, fmt.Errorf("register search attributes %s, %s: %w", SearchAttrStrategy, SearchAttrState, err)
	}
	// registration is asynchronous on some servers: wait until the namespace lists them
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		if ok, err := have(); ok || err != nil {
			return ok, err
		}
	}
	return false, fmt.Errorf("search attributes %s, %s were registered but are not listed yet", SearchAttrStrategy, SearchAttrState)
}
