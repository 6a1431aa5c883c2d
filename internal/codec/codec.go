// Package codec keeps sated's large Temporal payloads under the server's limits: a payload of
// DefaultThreshold bytes or more is stored zlib-compressed, a smaller one as plain JSON, so the
// Temporal UI and CLI show the common payloads as they are.
//
// Temporal refuses a payload of 2 MB (it terminates the run whose command carries it) and warns
// from 512 KB. What grows with a run's work (an investigation's findings and its report, the
// evidence every novelty assessment and the synthesis read) reached 0.67 MB for one
// investigation of one source; the same payloads compress 4-6x. Every client of sated's
// workflows (worker, starter, tests, replayers) uses DataConverter, so each reads what the other
// wrote; payloads written before, or by clients without the codec, are plain and read unchanged.
//
// Handler serves the codec over HTTP (the SDK's remote codec protocol, POST .../decode and
// .../encode) so the Temporal UI can show compressed payloads as JSON too: the worker serves it
// on SATED_CODEC_ADDR and the UI's codec endpoint points there.
package codec

import (
	"net/http"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/proto"
)

// DefaultThreshold is the payload size from which payloads are compressed: below the SDK's
// 512 KB warning with room for a payload that compresses poorly, and above what a default
// research run sends in one payload, so its history stays readable without a codec.
const DefaultThreshold = 128 << 10

// Large compresses the payloads of at least threshold bytes with zlib, when that makes them
// smaller; Decode undoes it and passes every other payload through.
type Large struct {
	threshold int
	zlib      converter.PayloadCodec
}

// NewLarge returns the codec compressing payloads of threshold bytes or more.
func NewLarge(threshold int) *Large {
	return &Large{threshold: threshold, zlib: converter.NewZlibCodec(converter.ZlibCodecOptions{})}
}

// Encode compresses each payload of the threshold's size or more (zlib keeps it plain when
// compressing would not shrink it).
func (c *Large) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		out[i] = p
		if proto.Size(p) < c.threshold {
			continue
		}
		enc, err := c.zlib.Encode([]*commonpb.Payload{p})
		if err != nil {
			return payloads, err
		}
		out[i] = enc[0]
	}
	return out, nil
}

// Decode decompresses the payloads Encode compressed and passes the others through.
func (c *Large) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	return c.zlib.Decode(payloads)
}

// DataConverter is the default JSON data converter with large payloads compressed: what every
// client of sated's workflows uses.
func DataConverter() converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), NewLarge(DefaultThreshold))
}

// Handler serves the codec to the Temporal UI (its "codec endpoint"): POST <path>/decode and
// <path>/encode with the SDK's JSON payloads. A browser calls it from the UI's page, so any
// origin may call it: it holds nothing, it only transforms the payloads it is sent.
func Handler() http.Handler {
	h := converter.NewPayloadCodecHTTPHandler(NewLarge(DefaultThreshold))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Set("Access-Control-Allow-Credentials", "true")
			w.Header().Set("Access-Control-Allow-Methods", "POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type, X-Namespace, Authorization")
			w.Header().Add("Vary", "Origin")
		}
		if r.Method == http.MethodOptions {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// NewReplayer is a workflow replayer reading histories as the worker wrote them.
func NewReplayer() worker.WorkflowReplayer {
	r, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{DataConverter: DataConverter()})
	if err != nil {
		panic(err) // only invalid options fail, and these are fixed
	}
	return r
}
