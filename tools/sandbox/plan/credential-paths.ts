/**
 * Paths that hold credentials, as data. Commands never see them, whatever
 * the rules make readable, and the file tools refuse them: the sandbox masks
 * each one that exists below a visible folder.
 */

/** Below the home directory. */
export const HOME_CREDENTIAL_PATHS: readonly string[] = [
  // Keys and cloud credentials.
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.oci',
  '.config/doctl',
  '.config/hcloud',
  '.docker/config.json',
  '.config/containers/auth.json',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.password-store',
  '.local/share/keyrings',
  '.pki',
  '.config/op',
  '.config/rclone',
  '.cloudflared',
  // Package registries and forges.
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pypirc',
  '.netrc',
  '.git-credentials',
  '.config/git/credentials',
  '.config/gh',
  '.config/hub',
  '.config/glab-cli',
  '.config/tea',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.composer/auth.json',
  '.config/composer/auth.json',
  '.config/pypoetry/auth.toml',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.nuget/NuGet/NuGet.Config',
  '.config/NuGet/NuGet.Config',
  '.huggingface/token',
  '.cache/huggingface/token',
  '.config/huggingface/token',
  '.config/configstore',
  '.config/pip/pip.conf',
  '.pip/pip.conf',
  '.config/uv/uv.toml',
  // Shell and REPL histories.
  '.bash_history',
  '.zsh_history',
  '.zhistory',
  '.histfile',
  '.sh_history',
  '.ash_history',
  '.history',
  '.local/share/fish/fish_history',
  '.config/fish/fish_history',
  '.local/share/atuin',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.sqlite_history',
  '.rediscli_history',
  '.irb_history',
  '.lesshst',
  '.wget-hsts',
  '.Rhistory',
  // Browsers and mail (cookies, saved passwords).
  '.mozilla',
  '.thunderbird',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
];

/** Below /etc: readable by root, and rein may be run as root. */
export const ETC_SECRET_PATHS: readonly string[] = [
  'shadow',
  'shadow-',
  'gshadow',
  'gshadow-',
  'sudoers',
  'sudoers.d',
  'security/opasswd',
  'ssl/private',
  'pki/tls/private',
  'letsencrypt/live',
  'letsencrypt/archive',
  'krb5.keytab',
  'ipsec.secrets',
  'ppp/chap-secrets',
  'ppp/pap-secrets',
  'NetworkManager/system-connections',
  'wpa_supplicant/wpa_supplicant.conf',
  'mysql/debian.cnf',
  'libvirt/secrets',
  'docker/key.json',
  'credstore',
  'credstore.encrypted',
  'rancher/k3s/k3s.yaml',
  'kubernetes/admin.conf',
];

/** Files in /etc/ssh whose names end like this are host private keys. */
export const ETC_SSH_KEY_SUFFIX = '_key';

/**
 * Workspace files hidden unless `permissions.readable` names them (gitignore
 * syntax, files only: a Python virtualenv is often called `.env`).
 */
export const DEFAULT_HIDDEN_FILES: readonly string[] = ['.env*'];
