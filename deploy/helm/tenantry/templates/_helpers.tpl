{{/*
The name of the release's own objects: tenantry-operator for the release "tenantry", else the release
name, with "-tenantry" added unless it says tenantry already.
*/}}
{{- define "tenantry.fullname" -}}
{{- if eq .Release.Name "tenantry" -}}
tenantry-operator
{{- else if contains "tenantry" .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-tenantry" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{/* Labels of every object. */}}
{{- define "tenantry.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: tenantry
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: tenantry
{{- end -}}

{{/* What selects the operator's pods. */}}
{{- define "tenantry.selectorLabels" -}}
app.kubernetes.io/name: tenantry
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{/* The identity the API server sees for the operator's ServiceAccount. */}}
{{- define "tenantry.username" -}}
system:serviceaccount:{{ .Release.Namespace }}:{{ .Values.serviceAccount.name }}
{{- end -}}

{{- define "tenantry.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{/* The ports the configuration gives the allocation API and the probes. */}}
{{- define "tenantry.httpPort" -}}
{{ .Values.config.httpPort | default 8080 }}
{{- end -}}
{{- define "tenantry.probePort" -}}
{{ .Values.config.probePort | default 8081 }}
{{- end -}}
{{- define "tenantry.transferPort" -}}
{{ (.Values.config.backups | default dict).transferPort | default 8082 }}
{{- end -}}
{{/* Whether the operator backs up (config.backups.enabled): the transfer endpoint is served then. */}}
{{- define "tenantry.backups" -}}
{{- if (.Values.config.backups | default dict).enabled -}}true{{- end -}}
{{- end -}}

{{- define "tenantry.storeDir" -}}/var/lib/tenantry/secret-store{{- end -}}
{{- define "tenantry.backupDir" -}}/var/lib/tenantry/backups{{- end -}}
{{- define "tenantry.tokenDir" -}}/etc/tenantry/allocation{{- end -}}
{{- define "tenantry.tlsDir" -}}/etc/tenantry/allocation-tls{{- end -}}

{{/*
The operator's configuration file: values.config with what the chart decides laid over it (the
release namespace for the Lease, the mounted token file, the mounted store by default).
*/}}
{{- define "tenantry.config" -}}
{{- $config := deepCopy .Values.config -}}
{{- $_ := set $config "operatorNamespace" .Release.Namespace -}}
{{- $store := deepCopy (default dict $config.secretStore) -}}
{{- if not $store.location -}}
{{- $_ := set $store "location" (printf "file:%s" (include "tenantry.storeDir" .)) -}}
{{- end -}}
{{- $_ := set $config "secretStore" $store -}}
{{- $allocation := deepCopy (default dict $config.allocation) -}}
{{- if .Values.allocation.tokenSecret.name -}}
{{- $_ := set $allocation "tokenFile" (printf "%s/%s" (include "tenantry.tokenDir" .) .Values.allocation.tokenSecret.key) -}}
{{- else if $allocation.enabled -}}
{{- fail "allocation.tokenSecret.name: required when config.allocation.enabled (the Secret holding the allocation API's bearer token)" -}}
{{- end -}}
{{- if .Values.allocation.tls.secretName -}}
{{- $_ := set $allocation "tlsCertFile" (printf "%s/tls.crt" (include "tenantry.tlsDir" .)) -}}
{{- $_ := set $allocation "tlsKeyFile" (printf "%s/tls.key" (include "tenantry.tlsDir" .)) -}}
{{- end -}}
{{- if $allocation -}}
{{- $_ := set $config "allocation" $allocation -}}
{{- end -}}
{{- if include "tenantry.backups" . -}}
{{- $backups := deepCopy $config.backups -}}
{{- if not (hasPrefix "gs://" ($backups.location | default "")) -}}
{{- if not .Values.backups.existingClaim -}}
{{- fail "backups.existingClaim: required when config.backups.enabled with a file: location (a volume for the backups), or set config.backups.location to gs://<bucket>" -}}
{{- end -}}
{{- $_ := set $backups "location" (printf "file:%s" (include "tenantry.backupDir" .)) -}}
{{- end -}}
{{- if not $backups.transferUrl -}}
{{- $_ := set $backups "transferUrl" (printf "http://%s-transfer.%s.svc.%s:%s" (include "tenantry.fullname" .) .Release.Namespace ($config.clusterDomain | default "cluster.local") (include "tenantry.transferPort" .)) -}}
{{- end -}}
{{- if not $backups.agentImage -}}
{{- $_ := set $backups "agentImage" (include "tenantry.image" .) -}}
{{- end -}}
{{- $_ := set $config "backups" $backups -}}
{{- end -}}
{{- toYaml $config -}}
{{- end -}}

{{/* The namespaces the configuration names (OperatorConfig's defaults when values.config is silent). */}}
{{- define "tenantry.namespacePrefix" -}}
{{ .Values.config.namespacePrefix | default "tenant-" }}
{{- end -}}
{{- define "tenantry.templateNamespace" -}}
{{ .Values.config.templateNamespace | default "tenantry-templates" }}
{{- end -}}
{{- define "tenantry.edgeNamespace" -}}
{{ .Values.config.edgeNamespace | default "tenantry-edge" }}
{{- end -}}

{{/*
The reserved subdomains, comma-separated: config.routing.reservedSubdomains, or the operator's
default list (OperatorConfig's routing.reservedSubdomains; HelmChartTest holds the two equal).
*/}}
{{- define "tenantry.reservedSubdomains" -}}
{{- $routing := .Values.config.routing | default dict -}}
{{- if hasKey $routing "reservedSubdomains" -}}
{{- join "," $routing.reservedSubdomains -}}
{{- else -}}
www,app,apps,api,admin,administrator,root,login,logout,signin,signup,register,auth,oauth,sso,id,account,accounts,billing,pay,payments,checkout,status,docs,help,support,blog,news,about,dashboard,console,portal,manage,cdn,static,assets,media,files,download,downloads,mail,email,webmail,smtp,imap,pop,pop3,mx,ns,ns1,ns2,dns,ftp,sftp,ssh,vpn,autodiscover,autoconfig,wpad,git,dev,staging,stage,test,qa,demo,sandbox,preview,internal,intranet,localhost
{{- end -}}
{{- end -}}
