{{/* The chart's name: hoopsidecar, or nameOverride. */}}
{{- define "hoopsidecar.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
<fullname>: <release>-hoopsidecar, or the release name alone when it already contains
hoopsidecar (spec, "On Kubernetes"); fullnameOverride replaces it. 63 characters at most.
*/}}
{{- define "hoopsidecar.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "hoopsidecar.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "hoopsidecar.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "hoopsidecar.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hoopsidecar.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "hoopsidecar.labels" -}}
helm.sh/chart: {{ include "hoopsidecar.chart" . }}
{{ include "hoopsidecar.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "hoopsidecar.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end }}

{{/* The config as written into the ConfigMap: values.config, sidecar defaulted to <fullname>. */}}
{{- define "hoopsidecar.config" -}}
{{- $cfg := deepCopy .Values.config }}
{{- if not $cfg.sidecar }}
{{- $_ := set $cfg "sidecar" (include "hoopsidecar.fullname" .) }}
{{- end }}
{{- toYaml $cfg }}
{{- end }}

{{/* The port of a listen address (host:port), or fail naming the value. */}}
{{- define "hoopsidecar.listenPort" -}}
{{- $port := regexFind "[0-9]+$" (toString .listen) }}
{{- if not $port }}
{{- fail (printf "%s: %q has no port (host:port)" .path .listen) }}
{{- end }}
{{- $port }}
{{- end }}

{{/* Whether a listen address binds loopback only ("true" or ""). */}}
{{- define "hoopsidecar.loopback" -}}
{{- if regexMatch "^(127\\.|localhost:|\\[::1\\]:)" (toString .) }}true{{ end }}
{{- end }}

{{/* The admin server's port, from config.admin.listen, which must exist and not be loopback. */}}
{{- define "hoopsidecar.adminPort" -}}
{{- $listen := dig "admin" "listen" "" .Values.config }}
{{- if not $listen }}
{{- fail "config.admin.listen is required: the probes (/healthz, /readyz) and /metrics are served there (e.g. 0.0.0.0:9090)" }}
{{- end }}
{{- if include "hoopsidecar.loopback" $listen }}
{{- fail (printf "config.admin.listen %s is loopback: the kubelet's probes cannot reach it; use 0.0.0.0:<port>" $listen) }}
{{- end }}
{{- include "hoopsidecar.listenPort" (dict "listen" $listen "path" "config.admin.listen") }}
{{- end }}

{{/* The lanes that are enabled, as a dict name → lane, checked. */}}
{{- define "hoopsidecar.lanes" -}}
{{- $out := dict }}
{{- range $name, $lane := .Values.laneServices }}
{{- if and $lane (dig "enabled" false $lane) }}
{{- if not (regexMatch "^[a-z]([-a-z0-9]*[a-z0-9])?$" $name) }}
{{- fail (printf "laneServices.%s: a lane name is a DNS label (lowercase letters, digits, -): it names the Service <fullname>-%s" $name $name) }}
{{- end }}
{{- if not (dig "ports" list $lane) }}
{{- fail (printf "laneServices.%s.ports: at least one {name, port} is required" $name) }}
{{- end }}
{{- $_ := set $out $name $lane }}
{{- end }}
{{- end }}
{{- toJson $out }}
{{- end }}

{{/*
A lane's Service name, <fullname>-<lane> (dict "root" $ "lane" name). Longer than 63 characters
it is refused rather than cut, so the agent's URL keeps the spec's form.
*/}}
{{- define "hoopsidecar.laneServiceName" -}}
{{- $name := printf "%s-%s" (include "hoopsidecar.fullname" .root) .lane }}
{{- if gt (len $name) 63 }}
{{- fail (printf "Service name %s is longer than 63 characters: use a shorter release name, fullnameOverride or lane name" $name) }}
{{- end }}
{{- $name }}
{{- end }}
