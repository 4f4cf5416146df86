package analyzerkit

import "reflect"

// entryOverhead is what the cache's own bookkeeping costs per entry, in
// bytes: a list element, a map slot and the entry header.
const entryOverhead = 128

// Size estimates, in bytes, the memory v holds: its own size plus what its
// strings, slices, maps and pointers reach (each pointer followed once). It
// is an estimate for Cache costs, not an exact account: it ignores
// allocator rounding.
func Size(v any) int64 {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return 0
	}
	return int64(rv.Type().Size()) + reach(rv, map[uintptr]bool{}, 0)
}

// reach returns the bytes v refers to beyond its own size.
func reach(v reflect.Value, seen map[uintptr]bool, depth int) int64 {
	if depth > 64 {
		return 0
	}
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		for i := 0; i < v.Len(); i++ {
			n += reach(v.Index(i), seen, depth+1)
		}
		return n
	case reflect.Array:
		var n int64
		for i := 0; i < v.Len(); i++ {
			n += reach(v.Index(i), seen, depth+1)
		}
		return n
	case reflect.Struct:
		var n int64
		for i := 0; i < v.NumField(); i++ {
			n += reach(v.Field(i), seen, depth+1)
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		n := int64(48)
		it := v.MapRange()
		for it.Next() {
			n += int64(v.Type().Key().Size()+v.Type().Elem().Size()) + 8
			n += reach(it.Key(), seen, depth+1) + reach(it.Value(), seen, depth+1)
		}
		return n
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] {
			return 0
		}
		seen[v.Pointer()] = true
		return int64(v.Type().Elem().Size()) + reach(v.Elem(), seen, depth+1)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		return int64(e.Type().Size()) + reach(e, seen, depth+1)
	}
	return 0
}
