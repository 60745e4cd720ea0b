package registry

// contender is what the shadowing rule knows of one extension of a name.
type contender struct {
	level     Level
	takesPart bool // a user extension always; a project one only in a trusted folder, agreed to as it is
}

// shadow decides among the extensions of one name, given in discovery order (providers by
// priority, highest first, each in its roots' scan order: spec/discovery.md). The first that
// takes part in shadowing wins: trust applies on top of the order, so a project extension
// the user did not agree to here shadows nothing. When none takes part (only project
// extensions, none agreed to), the first wins, to be listed as skipped with the reason.
// Every other one is shadowed by the winner; conflict marks a project one that lost to a
// user one (a cloned repository's extension named like an installed one).
func shadow(cs []contender) (winner int, conflict []bool) {
	for i, c := range cs {
		if c.takesPart {
			winner = i
			break
		}
	}
	conflict = make([]bool, len(cs))
	for i, c := range cs {
		conflict[i] = i != winner && c.level == LevelProject && cs[winner].level == LevelUser
	}
	return winner, conflict
}

// applyShadowing marks the losers among items (in discovery order) of each name. A project
// extension takes part only when it has a plain name, the folder is trusted and its consent
// record matches; trust and consent are read only for names found more than once.
func applyShadowing(env Env, items []*Extension) {
	first := make(map[string]*Extension, len(items))
	var dups map[string][]*Extension
	for _, x := range items {
		f, ok := first[x.Name]
		if !ok {
			first[x.Name] = x
			continue
		}
		if dups == nil {
			dups = map[string][]*Extension{}
		}
		if dups[x.Name] == nil {
			dups[x.Name] = []*Extension{f}
		}
		dups[x.Name] = append(dups[x.Name], x)
	}
	trusted, checked := false, false
	takesPart := func(x *Extension) bool {
		if x.Level != LevelProject {
			return true
		}
		if !checked {
			trusted, checked = env.FolderTrusted(env.Cwd), true
		}
		if !trusted || !PlainName(x.Name) {
			return false
		}
		state, _ := x.Consented(env)
		return state == ConsentGiven
	}
	for _, group := range dups {
		cs := make([]contender, len(group))
		for i, x := range group {
			cs[i] = contender{level: x.Level, takesPart: takesPart(x)}
		}
		w, conflict := shadow(cs)
		for i, x := range group {
			if i != w {
				x.Shadowed, x.ShadowedBy, x.Conflict = true, group[w], conflict[i]
			}
		}
	}
}
