package connbuf

import "io"

// Writer is a buffered writer of one connection (bufio.Writer's Write,
// Flush, Buffered and ReadFrom) that holds a buffer from its first Write
// to the next Flush. After a write error every call returns that error.
type Writer struct {
	wr  io.Writer
	buf *[]byte // nil while empty (released)
	n   int
	err error
}

// NewWriter returns a Writer to wr.
func NewWriter(wr io.Writer) *Writer { return &Writer{wr: wr} }

// Buffered returns the number of bytes written but not yet flushed.
func (w *Writer) Buffered() int { return w.n }

// Write buffers p (a p of Size bytes or more, with nothing buffered, goes
// to the connection at once) and returns len(p), or the write error.
func (w *Writer) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 && w.err == nil {
		if w.n == 0 && len(p) >= Size {
			var m int
			m, w.err = w.wr.Write(p)
			return written + m, w.err
		}
		if w.buf == nil {
			w.buf = getBuf()
		}
		m := copy((*w.buf)[w.n:], p)
		w.n += m
		written += m
		p = p[m:]
		if len(p) > 0 {
			w.flush()
		}
	}
	return written, w.err
}

// ReadFrom copies r into the buffer until io.EOF, flushing each time the
// buffer is full, and returns the number of bytes read (io.Copy uses it).
func (w *Writer) ReadFrom(r io.Reader) (int64, error) {
	var total int64
	for w.err == nil {
		if w.buf == nil {
			w.buf = getBuf()
		}
		if w.n == Size {
			if w.flush(); w.err != nil {
				break
			}
		}
		m, err := r.Read((*w.buf)[w.n:])
		w.n += m
		total += int64(m)
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
	return total, w.err
}

// Flush writes the buffered bytes to the connection and gives the buffer
// back; it returns the write error.
func (w *Writer) Flush() error {
	w.flush()
	if w.buf != nil && w.n == 0 {
		putBuf(w.buf)
		w.buf = nil
	}
	return w.err
}

// flush writes the buffered bytes, keeping the buffer.
func (w *Writer) flush() {
	if w.err != nil || w.n == 0 {
		return
	}
	m, err := w.wr.Write((*w.buf)[:w.n])
	if err == nil && m < w.n {
		err = io.ErrShortWrite
	}
	if err != nil {
		w.err = err
		return
	}
	w.n = 0
}
