package importers

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

func processMemoryLimit() MemoryLimit {
	status := procStatus()
	var best MemoryLimit
	consider := func(total, used int64, what string) {
		if total <= 0 {
			return
		}
		free := max(total-used, 0)
		if best.What == "" || free < best.Free {
			best = MemoryLimit{Free: free, What: what, Total: total}
		}
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur != ^uint64(0) && rl.Cur < 1<<62 {
		consider(int64(rl.Cur), status["VmSize"], "ulimit -v")
	}
	if limit, current := cgroupMemory(); limit > 0 {
		consider(limit, current, "the cgroup's memory.max")
	}
	mem := meminfo()
	consider(mem["MemTotal"]+mem["SwapTotal"], status["VmRSS"], "the machine's memory and swap")
	return best
}

// procStatus reads the kB fields of /proc/self/status, in bytes.
func procStatus() map[string]int64 { return kBFields("/proc/self/status") }

// meminfo reads /proc/meminfo, in bytes.
func meminfo() map[string]int64 { return kBFields("/proc/meminfo") }

// kBFields reads "Name:   123 kB" lines, in bytes.
func kBFields(path string) map[string]int64 {
	out := map[string]int64{}
	f, err := os.Open(path)
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			continue
		}
		if n, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			out[name] = n << 10
		}
	}
	return out
}

// cgroupMemory is the memory.max and memory.current of this process's
// cgroup (v2); 0, 0 when it has no limit or none can be read.
func cgroupMemory() (limit, current int64) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, 0
	}
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		p, ok := bytes.CutPrefix(line, []byte("0::"))
		if !ok {
			continue
		}
		dir := filepath.Join("/sys/fs/cgroup", filepath.Clean("/"+string(p)))
		limit = readInt(filepath.Join(dir, "memory.max"))
		current = readInt(filepath.Join(dir, "memory.current"))
	}
	return limit, current
}

// readInt reads a file holding one number; 0 for "max" or no file.
func readInt(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0
	}
	return n
}
