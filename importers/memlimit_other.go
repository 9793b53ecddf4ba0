//go:build !linux

package importers

// processMemoryLimit knows no limit outside Linux: the record cap alone
// bounds a record there.
func processMemoryLimit() MemoryLimit { return MemoryLimit{} }
