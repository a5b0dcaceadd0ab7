// Command helm-oracle answers render questions with Helm's own Go packages, for the conformance tests.
//
// It is built by `scripts/controlplane build` against helm.sh/helm/v4 at HELM4_VERSION (scripts/versions.env)
// and is long-running: one JSON request per line on stdin, one JSON answer per line on stdout, so thousands
// of cases cost one process start. An answer is {"ok": result} or {"error": {"kind", "message"}}, where
// message is Helm's error text exactly as Helm prints it (err.Error()).
//
// Operations (field "op"):
//
//	render          chart, values | values_yaml | values_files and set, set_string, set_json, set_file,
//	                set_literal (the CLI's -f/--set* flags, merged as the CLI merges them), name, namespace,
//	                revision, is_install,
//	                is_upgrade, kube_version, api_versions → {rendered: {template path: text}}
//	                (ProcessDependencies, ToRenderValues with Helm's default capabilities, pkg/engine: what
//	                `helm template` renders per file, with no cluster)
//	install         chart, values | values_yaml | values_files, name, namespace, kube_version, api_versions,
//	                include_crds, disable_hooks, sub_notes → {manifest, notes, hooks, description}
//	                (action.Install with DryRunStrategy client: `helm install --dry-run=client`)
//	chart           chart → {metadata, values, files, templates, crds, schema, dependencies}
//	merge_values    chart, values → coalesced values (CoalesceValues)
//	values_from_yaml yaml → values (common.ReadValues)
//	load_values     yaml → values (the -f/--values reader, loader.LoadValues)
//	strvals         mode (set|string|json|literal|file), expr → values
//	capabilities    → Helm's default capabilities (KubeVersion, APIVersions, HelmVersion)
//	version         → {helm: the helm.sh/helm/v4 module version this binary was built with}
//
// With "runs": N, render and install answer {seconds: [N durations]} instead: each run loads the chart
// afresh, untimed, then times the rest of the op in this process (benchmarks/render.py's Helm side, free of
// the JSON pipe).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	commonutil "helm.sh/helm/v4/pkg/chart/common/util"
	cliloader "helm.sh/helm/v4/pkg/chart/loader"
	chart "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/cli/values"
	"helm.sh/helm/v4/pkg/engine"
	"helm.sh/helm/v4/pkg/getter"
	release "helm.sh/helm/v4/pkg/release/v1"
	"helm.sh/helm/v4/pkg/strvals"
)

type request struct {
	Op          string         `json:"op"`
	Chart       string         `json:"chart"`
	Values      map[string]any `json:"values"`
	ValuesYAML  *string        `json:"values_yaml"`
	ValuesFiles []string       `json:"values_files"`
	Set         []string       `json:"set"`
	SetString   []string       `json:"set_string"`
	SetJSON     []string       `json:"set_json"`
	SetFile     []string       `json:"set_file"`
	SetLiteral  []string       `json:"set_literal"`
	Name        string         `json:"name"`
	Namespace   string         `json:"namespace"`
	Revision    int            `json:"revision"`
	IsInstall   *bool          `json:"is_install"`
	IsUpgrade   bool           `json:"is_upgrade"`
	KubeVersion string         `json:"kube_version"`
	APIVersions []string       `json:"api_versions"`
	IncludeCRDs bool           `json:"include_crds"`
	NoHooks     bool           `json:"disable_hooks"`
	SubNotes    bool           `json:"sub_notes"`
	YAML        string         `json:"yaml"`
	Mode        string         `json:"mode"`
	Expr        string         `json:"expr"`
	Runs        int            `json:"runs"`
}

// failure is an error with the kind of step that failed (load, values, render, install, ...).
type failure struct {
	kind string
	err  error
}

func (f *failure) Error() string { return f.err.Error() }

func fail(kind string, err error) error {
	if err == nil {
		return nil
	}
	return &failure{kind, err}
}

// loadChart loads as the helm CLI does (pkg/chart/loader picks the loader by the chart's apiVersion; install
// and template refuse a chart API v3 chart).
func loadChart(path string) (*chart.Chart, error) {
	ch, err := cliloader.Load(path)
	if err != nil {
		return nil, fail("load", err)
	}
	c, ok := ch.(*chart.Chart)
	if !ok {
		return nil, fail("load", errors.New("invalid chart apiVersion"))
	}
	return c, nil
}

// userValues are the request's values the way the helm CLI would read them.
func userValues(r *request) (map[string]any, error) {
	switch {
	case r.ValuesFiles != nil || r.Set != nil || r.SetString != nil || r.SetJSON != nil || r.SetFile != nil ||
		r.SetLiteral != nil:
		opts := values.Options{ValueFiles: r.ValuesFiles, Values: r.Set, StringValues: r.SetString,
			JSONValues: r.SetJSON, FileValues: r.SetFile, LiteralValues: r.SetLiteral}
		v, err := opts.MergeValues(getter.Providers{})
		return v, fail("values", err)
	case r.ValuesYAML != nil:
		v, err := common.ReadValues([]byte(*r.ValuesYAML))
		return v, fail("values", err)
	case r.Values != nil:
		return r.Values, nil
	}
	return map[string]any{}, nil
}

func capabilities(r *request) (*common.Capabilities, error) {
	caps := common.DefaultCapabilities.Copy()
	if r.KubeVersion != "" {
		kv, err := common.ParseKubeVersion(r.KubeVersion)
		if err != nil {
			return nil, fail("kube_version", err)
		}
		caps.KubeVersion = *kv
	}
	caps.APIVersions = append(caps.APIVersions, r.APIVersions...)
	return caps, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// loaded runs op on the request's chart, loaded once; with r.Runs > 0, times it r.Runs times instead.
func loaded(r *request, op func(*request, *chart.Chart) (any, error)) (any, error) {
	if r.Runs <= 0 {
		c, err := loadChart(r.Chart)
		if err != nil {
			return nil, err
		}
		return op(r, c)
	}
	seconds := make([]float64, 0, r.Runs)
	for i := 0; i < r.Runs; i++ {
		c, err := loadChart(r.Chart)
		if err != nil {
			return nil, err
		}
		start := time.Now()
		if _, err := op(r, c); err != nil {
			return nil, err
		}
		seconds = append(seconds, time.Since(start).Seconds())
	}
	return map[string]any{"seconds": seconds}, nil
}

func render(r *request, c *chart.Chart) (any, error) {
	vals, err := userValues(r)
	if err != nil {
		return nil, err
	}
	caps, err := capabilities(r)
	if err != nil {
		return nil, err
	}
	// As `helm template` and install do: conditions, tags and import-values first.
	if err := chartutil.ProcessDependencies(c, vals); err != nil {
		return nil, fail("values", err)
	}
	opts := common.ReleaseOptions{
		Name:      orDefault(r.Name, "release-name"),
		Namespace: orDefault(r.Namespace, "default"),
		Revision:  r.Revision,
		IsInstall: r.IsInstall == nil || *r.IsInstall,
		IsUpgrade: r.IsUpgrade,
	}
	if opts.Revision == 0 {
		opts.Revision = 1
	}
	top, err := commonutil.ToRenderValues(c, vals, opts, caps)
	if err != nil {
		return nil, fail("values", err)
	}
	out, err := engine.Engine{}.RenderWithContext(context.Background(), c, top)
	if err != nil {
		return nil, fail("render", err)
	}
	return map[string]any{"rendered": out}, nil
}

func install(r *request, c *chart.Chart) (any, error) {
	vals, err := userValues(r)
	if err != nil {
		return nil, err
	}
	inst := action.NewInstall(action.NewConfiguration())
	inst.DryRunStrategy = action.DryRunClient
	inst.ReleaseName = orDefault(r.Name, "release-name")
	inst.Namespace = orDefault(r.Namespace, "default")
	inst.IncludeCRDs = r.IncludeCRDs
	inst.DisableHooks = r.NoHooks
	inst.SubNotes = r.SubNotes
	inst.APIVersions = common.VersionSet(r.APIVersions)
	if r.KubeVersion != "" {
		kv, err := common.ParseKubeVersion(r.KubeVersion)
		if err != nil {
			return nil, fail("kube_version", err)
		}
		inst.KubeVersion = kv
	}
	rel, err := inst.RunWithContext(context.Background(), c, vals)
	if err != nil {
		return nil, fail("install", err)
	}
	v1, ok := rel.(*release.Release)
	if !ok {
		return nil, fail("install", fmt.Errorf("unexpected release type %T", rel))
	}
	hooks := v1.Hooks
	if hooks == nil {
		hooks = []*release.Hook{}
	}
	return map[string]any{"manifest": v1.Manifest, "notes": v1.Info.Notes, "hooks": hooks,
		"description": v1.Info.Description}, nil
}

type namedData struct {
	Name     string `json:"name"`
	Filename string `json:"filename,omitempty"`
	Data     string `json:"data"`
}

func describe(r *request) (any, error) {
	c, err := loadChart(r.Chart)
	if err != nil {
		return nil, err
	}
	files := func(list []*common.File) []namedData {
		out := []namedData{}
		for _, f := range list {
			out = append(out, namedData{Name: f.Name, Data: string(f.Data)})
		}
		return out
	}
	crds := []namedData{}
	for _, o := range c.CRDObjects() {
		crds = append(crds, namedData{Name: o.Name, Filename: o.Filename, Data: string(o.File.Data)})
	}
	var schema any
	if len(c.Schema) > 0 {
		if err := json.Unmarshal(c.Schema, &schema); err != nil {
			return nil, fail("schema", err)
		}
	}
	deps := []*chart.Metadata{}
	for _, d := range c.Dependencies() {
		deps = append(deps, d.Metadata)
	}
	return map[string]any{"metadata": c.Metadata, "values": c.Values, "files": files(c.Files),
		"templates": files(c.Templates), "crds": crds, "schema": schema, "dependencies": deps}, nil
}

func mergeValues(r *request) (any, error) {
	c, err := loadChart(r.Chart)
	if err != nil {
		return nil, err
	}
	vals, err := userValues(r)
	if err != nil {
		return nil, err
	}
	merged, err := commonutil.CoalesceValues(c, vals)
	return merged, fail("values", err)
}

func parseStrvals(r *request) (any, error) {
	var (
		out map[string]any
		err error
	)
	switch r.Mode {
	case "set":
		out, err = strvals.Parse(r.Expr)
	case "string":
		out, err = strvals.ParseString(r.Expr)
	case "literal":
		out, err = strvals.ParseLiteral(r.Expr)
	case "json":
		out = map[string]any{}
		err = strvals.ParseJSON(r.Expr, out)
	case "file":
		out, err = strvals.ParseFile(r.Expr, func(rs []rune) (any, error) {
			data, err := os.ReadFile(string(rs))
			return string(data), err
		})
	default:
		return nil, fail("request", fmt.Errorf("unknown strvals mode %q", r.Mode))
	}
	return out, fail("values", err)
}

func helmVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "helm.sh/helm/v4" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func handle(r *request) (any, error) {
	switch r.Op {
	case "render":
		return loaded(r, render)
	case "install":
		return loaded(r, install)
	case "chart":
		return describe(r)
	case "merge_values":
		return mergeValues(r)
	case "values_from_yaml":
		v, err := common.ReadValues([]byte(r.YAML))
		return v, fail("values", err)
	case "load_values":
		v, err := loader.LoadValues(strings.NewReader(r.YAML))
		return v, fail("values", err)
	case "strvals":
		return parseStrvals(r)
	case "capabilities":
		caps, err := capabilities(r)
		if err != nil {
			return nil, err
		}
		return map[string]any{"KubeVersion": map[string]string{"Version": caps.KubeVersion.Version,
			"Major": caps.KubeVersion.Major, "Minor": caps.KubeVersion.Minor},
			"APIVersions": caps.APIVersions, "HelmVersion": caps.HelmVersion}, nil
	case "version":
		return map[string]string{"helm": helmVersion()}, nil
	}
	return nil, fail("request", fmt.Errorf("unknown op %q", r.Op))
}

// answer runs one request; a panic inside Helm is an answer too, never the end of the process.
func answer(r *request) (reply map[string]any) {
	defer func() {
		if p := recover(); p != nil {
			reply = map[string]any{"error": map[string]string{"kind": "panic", "message": fmt.Sprint(p)}}
		}
	}()
	result, err := handle(r)
	if err != nil {
		kind := "error"
		var f *failure
		if errors.As(err, &f) {
			kind = f.kind
		}
		return map[string]any{"error": map[string]string{"kind": kind, "message": err.Error()}}
	}
	return map[string]any{"ok": result}
}

func main() {
	// Helm prints warnings (coalescing, deprecated charts) through log and slog; the protocol owns stdout.
	out := os.Stdout
	os.Stdout = os.Stderr
	log.SetOutput(os.Stderr)
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, nil)))

	dec := json.NewDecoder(os.Stdin)
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	for {
		var r request
		if err := dec.Decode(&r); err != nil {
			if errors.Is(err, io.EOF) {
				return
			}
			_ = enc.Encode(map[string]any{"error": map[string]string{"kind": "request", "message": err.Error()}})
			return
		}
		if err := enc.Encode(answer(&r)); err != nil {
			fmt.Fprintln(os.Stderr, "helm-oracle:", err)
			os.Exit(1)
		}
	}
}
