package manifest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"sync"
)

// KnownFields are the top-level fields gem understands (Gemini CLI's and gem's own).
var KnownFields = []string{
	"name", "version", "description", "mcpServers", "contextFileName", "excludeTools",
	"settings", "themes", "plan", "migratedTo", "commands", "plugins", "sandbox", "engines",
}

// Load builds a Manifest from a decoded JSON document, keeping every field whose type is
// right and reporting every field whose type is wrong (as errors, with the JSON path).
// It never fails: an odd document gives an empty manifest and problems.
func Load(raw any) (*Manifest, Problems) {
	l := &loader{}
	m := &Manifest{Raw: raw}
	obj, ok := raw.(map[string]any)
	if !ok {
		l.add("", raw, "the manifest must be a JSON object like {\"name\": \"my-ext\", \"version\": \"1.0.0\"}")
		return m, l.problems
	}
	if v, ok := obj["name"]; ok && v != nil {
		switch n := v.(type) {
		case string:
			m.Name, m.NameSet = n, true
		case float64:
			m.Name, m.NameSet = strconv.FormatFloat(n, 'f', -1, 64), true
			l.add("name", v, "must be a string")
		case bool:
			m.Name, m.NameSet = strconv.FormatBool(n), true
			l.add("name", v, "must be a string")
		default:
			l.add("name", v, "must be a string")
		}
	}
	m.Version, _ = l.str(obj, "version", "version")
	m.Description, _ = l.str(obj, "description", "description")
	if v, ok := obj["contextFileName"]; ok && v != nil {
		m.ContextFileSet = true
		switch c := v.(type) {
		case string:
			m.ContextFileName = []string{c}
		case []any:
			m.ContextFileName = l.strSlice(c, "contextFileName")
		default:
			l.add("contextFileName", v, "must be a file name or an array of file names")
		}
	}
	m.ExcludeTools = l.strList(obj, "excludeTools", "excludeTools")
	m.MigratedTo, _ = l.str(obj, "migratedTo", "migratedTo")
	if v, ok := obj["themes"]; ok {
		m.Themes = rawJSON(v)
	}
	if v, ok := obj["plan"]; ok {
		m.Plan = rawJSON(v)
	}
	if arr, ok := l.array(obj, "settings", "settings"); ok {
		for i, item := range arr {
			p := "settings[" + strconv.Itoa(i) + "]"
			so, ok := item.(map[string]any)
			if !ok {
				l.add(p, item, "must be an object with name, description and envVar")
				continue
			}
			var s Setting
			l.fields(so, p, &s)
			m.Settings = append(m.Settings, s)
		}
	}
	m.MCPServers = named(l, obj, "mcpServers", func(name string) MCPServer { return MCPServer{Name: name} },
		func(string) string { return "must be an object with command (stdio), httpUrl or url" })
	m.Commands = named(l, obj, "commands", func(name string) Command { return Command{Name: name} }, func(name string) string {
		return "must be an object like {\"type\": \"executable\", \"binary\": \"${extensionPath}/bin/${platform}/${arch}/" + name + "\"}"
	})
	m.Plugins = named(l, obj, "plugins", func(id string) Plugin { return Plugin{ID: id} }, func(id string) string {
		return "must be an object like {\"binary\": \"${extensionPath}/bin/${platform}/${arch}/" + id + "\"}"
	})
	m.Sandbox = l.sandbox(obj, "sandbox", "sandbox")
	if eng, ok := l.object(obj, "engines", "engines"); ok {
		m.Engines.Gem, _ = l.str(eng, "gem", "engines.gem")
	}
	return m, l.problems
}

type loader struct {
	problems Problems
}

// The field tables: the manifest:"key" tags of Setting, MCPServer, Command and Plugin name
// each field's key; its Go type says how it is read and what a wrong value is told. The
// plan of each type is made once.
type fieldPlan struct {
	index int
	key   string
	read  func(l *loader, obj map[string]any, key, path string, dst any) // dst: the field's address
}

var fieldPlans sync.Map // reflect.Type -> []fieldPlan

func planOf(t reflect.Type) []fieldPlan {
	if p, ok := fieldPlans.Load(t); ok {
		return p.([]fieldPlan)
	}
	var plan []fieldPlan
	for i := range t.NumField() {
		key := t.Field(i).Tag.Get("manifest")
		if key == "" {
			continue
		}
		plan = append(plan, fieldPlan{i, key, readerFor(t.Field(i).Type)})
	}
	fieldPlans.Store(t, plan)
	return plan
}

func readerFor(t reflect.Type) func(l *loader, obj map[string]any, key, path string, dst any) {
	switch t {
	case reflect.TypeFor[string]():
		return func(l *loader, obj map[string]any, key, path string, dst any) {
			*dst.(*string), _ = l.str(obj, key, path)
		}
	case reflect.TypeFor[bool]():
		return func(l *loader, obj map[string]any, key, path string, dst any) {
			*dst.(*bool), _ = l.boolean(obj, key, path)
		}
	case reflect.TypeFor[float64]():
		return func(l *loader, obj map[string]any, key, path string, dst any) {
			*dst.(*float64), _ = l.number(obj, key, path)
		}
	case reflect.TypeFor[[]string]():
		return func(l *loader, obj map[string]any, key, path string, dst any) {
			*dst.(*[]string) = l.strList(obj, key, path)
		}
	case reflect.TypeFor[[]KV]():
		return func(l *loader, obj map[string]any, key, path string, dst any) {
			*dst.(*[]KV) = l.strMap(obj, key, path)
		}
	case reflect.TypeFor[*Sandbox]():
		return func(l *loader, obj map[string]any, key, path string, dst any) {
			*dst.(**Sandbox) = l.sandbox(obj, key, path)
		}
	case reflect.TypeFor[json.RawMessage]():
		return func(l *loader, obj map[string]any, key, path string, dst any) {
			if raw, ok := obj[key]; ok {
				*dst.(*json.RawMessage) = rawJSON(raw)
			}
		}
	}
	panic("manifest: no reader for " + t.String()) // a tag on a new type: caught by every test
}

// named reads an object of objects keyed by name (mcpServers, commands, plugins) in key
// order: each entry is made by fresh(name) and its tagged fields read (fields); an entry
// that is not an object is a problem told with want(name).
func named[T any](l *loader, obj map[string]any, key string, fresh func(name string) T, want func(name string) string) []T {
	entries, ok := l.object(obj, key, key)
	if !ok {
		return nil
	}
	var out []T
	for _, name := range sortedKeys(entries) {
		path := key + "." + name
		o, ok := entries[name].(map[string]any)
		if !ok {
			l.add(path, entries[name], want(name))
			continue
		}
		v := fresh(name)
		l.fields(o, path, &v)
		out = append(out, v)
	}
	return out
}

// fields reads the tagged fields of the struct dst points to from obj, in their order,
// naming each problem path.key.
func (l *loader) fields(obj map[string]any, path string, dst any) {
	v := reflect.ValueOf(dst).Elem()
	for _, f := range planOf(v.Type()) {
		if _, present := obj[f.key]; !present && f.key != "sandbox" {
			continue // absent: the zero value (sandbox reads its own absence)
		}
		f.read(l, obj, f.key, path+"."+f.key, v.Field(f.index).Addr().Interface())
	}
}

func (l *loader) add(path string, v any, want string) {
	l.problems = append(l.problems, Problem{Severity: Error, Path: path, Value: render(v), Want: want})
}

func (l *loader) wrongType(path string, v any, want string) {
	l.add(path, v, "must be "+want+", not "+jsonType(v))
}

func (l *loader) str(obj map[string]any, key, path string) (string, bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		l.wrongType(path, v, "a string")
	}
	return s, ok
}

func (l *loader) boolean(obj map[string]any, key, path string) (bool, bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		return false, false
	}
	b, ok := v.(bool)
	if !ok {
		l.wrongType(path, v, "true or false")
	}
	return b, ok
}

func (l *loader) number(obj map[string]any, key, path string) (float64, bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		return 0, false
	}
	n, ok := v.(float64)
	if !ok {
		l.wrongType(path, v, "a number")
	}
	return n, ok
}

func (l *loader) array(obj map[string]any, key, path string) ([]any, bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		return nil, false
	}
	a, ok := v.([]any)
	if !ok {
		l.wrongType(path, v, "an array")
	}
	return a, ok
}

func (l *loader) object(obj map[string]any, key, path string) (map[string]any, bool) {
	v, ok := obj[key]
	if !ok || v == nil {
		return nil, false
	}
	o, ok := v.(map[string]any)
	if !ok {
		l.wrongType(path, v, "an object")
	}
	return o, ok
}

func (l *loader) strList(obj map[string]any, key, path string) []string {
	a, ok := l.array(obj, key, path)
	if !ok {
		return nil
	}
	return l.strSlice(a, path)
}

func (l *loader) strSlice(a []any, path string) []string {
	out := make([]string, 0, len(a))
	for i, item := range a {
		s, ok := item.(string)
		if !ok {
			l.wrongType(path+"["+strconv.Itoa(i)+"]", item, "a string")
			continue
		}
		out = append(out, s)
	}
	return out
}

func (l *loader) strMap(obj map[string]any, key, path string) []KV {
	o, ok := l.object(obj, key, path)
	if !ok {
		return nil
	}
	out := make([]KV, 0, len(o))
	for _, k := range sortedKeys(o) {
		s, ok := o[k].(string)
		if !ok {
			l.wrongType(path+"."+k, o[k], "a string")
			continue
		}
		out = append(out, KV{Key: k, Value: s})
	}
	return out
}

func (l *loader) sandbox(obj map[string]any, key, path string) *Sandbox {
	o, ok := l.object(obj, key, path)
	if !ok {
		return nil
	}
	s := &Sandbox{}
	s.Network, _ = l.boolean(o, "network", path+".network")
	s.Read = l.strList(o, "read", path+".read")
	s.Write = l.strList(o, "write", path+".write")
	s.Env = l.strList(o, "env", path+".env")
	s.Toolchains = l.strList(o, "toolchains", path+".toolchains")
	return s
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func rawJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}
