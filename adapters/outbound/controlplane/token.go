package controlplane

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"
)

// Redacted is what every String, GoString, LogValue and JSON form prints in
// place of the Sidecar token.
const Redacted = "[REDACTED]"

// TokenSource supplies the Sidecar token (docs/control-plane-api.md, "Auth")
// for each call. Implementations must never put the token in an error or in
// their printed form. StaticToken, TokenFromEnv and TokenFromFile are the
// three sources the Sidecar uses.
type TokenSource interface {
	// Token returns the token, trimmed, never empty when err is nil.
	Token() (string, error)
}

// StaticToken is a token given as a literal string. Every printed form of it
// (fmt verbs, slog, JSON) is Redacted; only Token returns the value.
type StaticToken string

// Token returns the token with surrounding whitespace removed; an error (that
// does not contain the value) when it is empty or holds whitespace or control
// characters.
func (t StaticToken) Token() (string, error) {
	return checkToken(string(t), "the configured token")
}

// String returns Redacted.
func (t StaticToken) String() string { return Redacted }

// GoString returns Redacted.
func (t StaticToken) GoString() string { return Redacted }

// Format prints Redacted for every verb.
func (t StaticToken) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(Redacted)) }

// LogValue returns Redacted.
func (t StaticToken) LogValue() slog.Value { return slog.StringValue(Redacted) }

// MarshalJSON returns Redacted as a JSON string.
func (t StaticToken) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// MarshalText returns Redacted.
func (t StaticToken) MarshalText() ([]byte, error) { return []byte(Redacted), nil }

// checkToken trims v and refuses an empty token or one with inner whitespace
// or control characters (it would not fit an Authorization header). where
// names the source in the error; the value is never included.
func checkToken(v, where string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", fmt.Errorf("control plane token: %s is empty", where)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= ' ' || c == 0x7f {
			return "", fmt.Errorf("control plane token: %s holds whitespace or control characters inside the token", where)
		}
	}
	return v, nil
}

// envToken is a token read once from an environment variable.
type envToken struct {
	name  string
	value string
}

// TokenFromEnv reads the token from the environment variable name now
// (control_plane.token_env). The error names the variable, never its value:
// unset, empty (after trimming whitespace) or malformed.
func TokenFromEnv(name string) (TokenSource, error) {
	if name == "" {
		return nil, errors.New("control plane token: no environment variable name given")
	}
	v, ok := os.LookupEnv(name)
	if !ok {
		return nil, fmt.Errorf("control plane token: environment variable %s is not set", name)
	}
	t, err := checkToken(v, "environment variable "+name)
	if err != nil {
		return nil, err
	}
	return &envToken{name: name, value: t}, nil
}

func (t *envToken) Token() (string, error) { return t.value, nil }
func (t *envToken) String() string {
	return "token from environment variable " + t.name + " " + Redacted
}
func (t *envToken) GoString() string             { return t.String() }
func (t *envToken) Format(f fmt.State, _ rune)   { _, _ = f.Write([]byte(t.String())) }
func (t *envToken) LogValue() slog.Value         { return slog.StringValue(t.String()) }
func (t *envToken) MarshalJSON() ([]byte, error) { return []byte(`"` + Redacted + `"`), nil }

// fileToken is a token read from a file, re-read when the file changes (a
// rotated Kubernetes secret, for example).
type fileToken struct {
	path string

	mu    sync.Mutex
	value string
	mod   time.Time
	size  int64
}

// TokenFromFile reads the token from the file at path now
// (control_plane.token_file), trimming surrounding whitespace. The error names
// the file, never its content: missing, unreadable, empty or malformed. Each
// later Token call re-reads the file when its modification time or size
// changed, so a rotated token is picked up without a restart.
func TokenFromFile(path string) (TokenSource, error) {
	if path == "" {
		return nil, errors.New("control plane token: no file name given")
	}
	t := &fileToken{path: path}
	if _, err := t.Token(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *fileToken) Token() (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fi, err := os.Stat(t.path)
	if err != nil {
		return "", fmt.Errorf("control plane token: file %s: %w", t.path, unwrapPath(err))
	}
	if t.value != "" && fi.ModTime().Equal(t.mod) && fi.Size() == t.size {
		return t.value, nil
	}
	b, err := os.ReadFile(t.path)
	if err != nil {
		return "", fmt.Errorf("control plane token: file %s: %w", t.path, unwrapPath(err))
	}
	v, err := checkToken(string(b), "file "+t.path)
	if err != nil {
		return "", err
	}
	t.value, t.mod, t.size = v, fi.ModTime(), fi.Size()
	return v, nil
}

// unwrapPath drops the *PathError frame so the path is not named twice.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func (t *fileToken) String() string             { return "token from file " + t.path + " " + Redacted }
func (t *fileToken) GoString() string           { return t.String() }
func (t *fileToken) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(t.String())) }
func (t *fileToken) LogValue() slog.Value       { return slog.StringValue(t.String()) }
func (t *fileToken) MarshalJSON() ([]byte, error) {
	return []byte(`"` + Redacted + `"`), nil
}
