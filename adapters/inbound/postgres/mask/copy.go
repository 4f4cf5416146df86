package mask

import (
	"encoding/binary"

	"github.com/hoophq/sidecar/domain/masking"
)

// CopyRow masks one CopyData message of a COPY TO STDOUT in text or csv
// format (one row, whose column names the protocol does not give) by
// entity: f is the plan's Field() for a value with no name. Each run
// between tabs and commas (the two formats' default delimiters) is masked
// alone, so that no replacement takes a delimiter with it. It returns
// frame itself when nothing changed, else a new frame appended to
// dst[:0].
func CopyRow(dst []byte, f *masking.Field, frame []byte) []byte {
	if f == nil || len(frame) < 5 {
		return frame
	}
	var tmp []byte
	out, at, changed := dst[:0], 5, false
	for i := 5; i <= len(frame); i++ {
		if i < len(frame) && frame[i] != '\t' && frame[i] != ',' {
			continue
		}
		m, ch := f.Text(tmp, frame[at:i])
		if ch {
			if !changed {
				out = append(out, frame[:at]...)
			}
			out, changed = append(out, m...), true
			tmp = m[:0]
		} else if changed {
			out = append(out, frame[at:i]...)
		}
		if i < len(frame) && changed {
			out = append(out, frame[i])
		}
		at = i + 1
	}
	if !changed {
		return frame
	}
	binary.BigEndian.PutUint32(out[1:], uint32(len(out)-1))
	return out
}
