/* sandbox.c: run one untrusted process safely; see sandbox.h for the
   process structure.  The guard exists so that the one process that can
   always be reached by the candidate (its parent) is a disposable one:
   the caller only reads pipes, and learns from the guard's status pipe
   how the candidate ended, or from its silence that the guard was lost.  */
#include "system.h"

#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <linux/securebits.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fileio.h"
#include "sandbox.h"
#include "secrets.h"

extern char **environ;

/* How long the caller keeps reading after the guard has reported (or
   vanished), and how much longer than the deadline it waits for the
   guard before killing it.  */
#define DRAIN_GRACE_S 2.0
#define BACKSTOP_S 10.0
/* How long the guard keeps killing what the candidate left behind.  */
#define SWEEP_S 5.0
#define RESULT_MAX (64u << 20)

/* What the guard tells the caller; each message is one atomic write.  */
/* GUARD_PROC comes from the candidate itself, before it runs anything.  */
enum guard_kind { GUARD_STARTED = 1, GUARD_ENDED, GUARD_FAILED, GUARD_PROC };

struct guard_msg
{
  int kind;
  pid_t pid;                    /* the candidate, in the caller's PID ns */
  int wstatus;
  int timed_out;
  int net_isolated;
  int pid_namespace;
  int fs_readonly;
  int proc_private;             /* GUARD_PROC: the candidate's own /proc */
  int aborted;                  /* the guard got SIGTERM */
  int err;
  char text[160];
};

/* Values of secret-looking variables, noted by dice_sandbox_prepare.  */
static char **secret_values;
static size_t nsecret_values;

static double
now_s (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool
dice_sandbox_keeps_variable (const char *name)
{
  /* What compilers, CUDA, torch and Python read.  HOME, TMPDIR and
     TORCH_EXTENSIONS_DIR are always replaced.  */
  static const char *const names[] = {
    "PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME",
    "LD_LIBRARY_PATH", "MAX_JOBS", "CC", "CXX", "NVCC_PREPEND_FLAGS",
    "NVCC_APPEND_FLAGS", "DICE_FASTBUILD"
  };
  static const char *const prefixes[] = {
    "LC_", "CUDA_", "NVIDIA_", "TORCH_", "PYTHON", "OMP_", "MKL_",
    "OPENBLAS_"
  };
  bool kept = false;

  if (dice_secret_name (name))
    return false;
  for (size_t i = 0; i < DICE_ARRAY_SIZE (names) && !kept; i++)
    kept = strcmp (name, names[i]) == 0;
  for (size_t i = 0; i < DICE_ARRAY_SIZE (prefixes) && !kept; i++)
    kept = strncmp (name, prefixes[i], strlen (prefixes[i])) == 0;
  return kept && strcmp (name, "TORCH_EXTENSIONS_DIR") != 0;
}

int
dice_sandbox_prepare (void)
{
  for (char **e = environ; *e; e++)
    {
      const char *eq = strchr (*e, '=');
      char name[256];
      size_t len;

      if (eq == NULL || (size_t) (eq - *e) >= sizeof name)
        continue;
      len = (size_t) (eq - *e);
      memcpy (name, *e, len);
      name[len] = '\0';
      /* Short values would redact ordinary words.  */
      if (!dice_secret_name (name) || strlen (eq + 1) < 6)
        continue;
      char **grown = realloc (secret_values,
                              (nsecret_values + 1) * sizeof *grown);
      if (grown == NULL)
        return -1;
      secret_values = grown;
      if ((secret_values[nsecret_values] = strdup (eq + 1)) == NULL)
        return -1;
      nsecret_values++;
    }
  return prctl (PR_SET_DUMPABLE, 0, 0, 0, 0);
}

char *
dice_sandbox_redact (const char *s)
{
  size_t len = strlen (s);
  size_t outlen;
  char *out = dice_redact (s, len, (const char *const *) secret_values,
                           nsecret_values, &outlen);

  /* NULL says "nothing to redact" to the caller, which then keeps S.  */
  if (out && outlen == len && memcmp (out, s, len) == 0)
    {
      free (out);
      return NULL;
    }
  return out;
}

void
dice_sandbox_free_env (char **env)
{
  if (env == NULL)
    return;
  for (char **e = env; *e; e++)
    free (*e);
  free (env);
}

/* Append "NAME=VALUE" (or ENTRY when NAME is NULL) to ENV, replacing an
   entry of the same name.  Returns false when memory ran out.  */
static bool
env_put (char ***env, size_t *n, const char *entry)
{
  size_t namelen = strcspn (entry, "=");
  char *copy = strdup (entry);
  char **grown;

  if (copy == NULL)
    return false;
  for (size_t i = 0; i < *n; i++)
    if (strncmp ((*env)[i], entry, namelen + 1) == 0)
      {
        free ((*env)[i]);
        (*env)[i] = copy;
        return true;
      }
  grown = realloc (*env, (*n + 2) * sizeof *grown);
  if (grown == NULL)
    {
      free (copy);
      return false;
    }
  *env = grown;
  (*env)[(*n)++] = copy;
  (*env)[*n] = NULL;
  return true;
}

static bool
env_set (char ***env, size_t *n, const char *name, const char *value)
{
  size_t len = strlen (name) + strlen (value) + 2;
  char *entry = malloc (len);
  bool done;

  if (entry == NULL)
    return false;
  snprintf (entry, len, "%s=%s", name, value);
  done = env_put (env, n, entry);
  free (entry);
  return done;
}

char **
dice_sandbox_environ (const char *dir, char *const *extra)
{
  char **env = calloc (1, sizeof *env);
  size_t n = 0;
  bool good = env != NULL;
  const char *home = getenv ("HOME");
  char fd[16];

  for (char **e = environ; good && *e; e++)
    {
      char name[256];
      size_t len = strcspn (*e, "=");

      if ((*e)[len] != '=' || len >= sizeof name)
        continue;
      memcpy (name, *e, len);
      name[len] = '\0';
      if (dice_sandbox_keeps_variable (name))
        good = env_put (&env, &n, *e);
    }
  /* Packages installed with pip --user stay importable although HOME
     moves.  */
  if (good && home && *home && getenv ("PYTHONUSERBASE") == NULL)
    {
      char base[PATH_MAX];

      snprintf (base, sizeof base, "%s/.local", home);
      good = env_set (&env, &n, "PYTHONUSERBASE", base);
    }
  snprintf (fd, sizeof fd, "%d", DICE_SANDBOX_RESULT_FD);
  good = good && env_set (&env, &n, "HOME", dir)
    && env_set (&env, &n, "TMPDIR", dir)
    && env_set (&env, &n, "TORCH_EXTENSIONS_DIR", dir)
    && env_set (&env, &n, "DICE_RESULT_FD", fd);
  for (char *const *e = extra; good && e && *e; e++)
    good = env_put (&env, &n, *e);
  if (!good)
    {
      dice_sandbox_free_env (env);
      return NULL;
    }
  return env;
}

/* Close every descriptor from LO up, except those in KEEP (sorted, all
   >= LO).  close_range where the kernel has it, else one by one.  */
static void
close_from (int lo, const int *keep, size_t nkeep)
{
  struct rlimit rl;
  int hi = 65536;

  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
      && rl.rlim_cur < (rlim_t) hi)
    hi = (int) rl.rlim_cur;
  for (size_t i = 0; i <= nkeep; i++)
    {
      int end = i < nkeep ? keep[i] - 1 : -1;

#ifdef SYS_close_range
      if (syscall (SYS_close_range, (unsigned) lo,
                   end < 0 ? ~0u : (unsigned) end, 0) == 0)
        {
          lo = i < nkeep ? keep[i] + 1 : lo;
          continue;
        }
#endif
      for (int fd = lo; fd <= (end < 0 ? hi : end); fd++)
        close (fd);
      lo = i < nkeep ? keep[i] + 1 : lo;
    }
}

static int
compare_ints (const void *a, const void *b)
{
  return *(const int *) a - *(const int *) b;
}

static bool
write_file (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  ssize_t len = (ssize_t) strlen (text);
  bool done;

  if (fd < 0)
    return false;
  done = write (fd, text, (size_t) len) == len;
  return close (fd) == 0 && done;
}

/* Bring up the loopback interface of a new network namespace: some
   libraries talk to themselves over localhost.  */
static void
loopback_up (void)
{
  int s = socket (AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr;

  if (s < 0)
    return;
  memset (&ifr, 0, sizeof ifr);
  strcpy (ifr.ifr_name, "lo");
  if (ioctl (s, SIOCGIFFLAGS, &ifr) == 0)
    {
      ifr.ifr_flags |= IFF_UP;
      ioctl (s, SIOCSIFFLAGS, &ifr);
    }
  close (s);
}

/* Undo the octal escapes of /proc/self/mountinfo (\040 for a space), in
   place.  */
static void
unescape (char *s)
{
  char *w = s;

  for (const char *r = s; *r;)
    if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0'
        && r[2] <= '7' && r[3] >= '0' && r[3] <= '7')
      {
        *w++ = (char) (((r[1] - '0') << 6) | ((r[2] - '0') << 3)
                       | (r[3] - '0'));
        r += 4;
      }
    else
      *w++ = *r++;
  *w = '\0';
}

/* In the guard, in a user namespace (or privileged): a new mount
   namespace in which every mount is read-only except SB->dir, the
   WRITABLE directories (bound onto themselves first, so that they are
   mounts of their own), /dev (devices, shared memory), /proc and /sys.
   The candidate, having no capabilities, cannot undo it.  Returns true
   when every remount succeeded.  */
static bool
readonly_filesystem (const struct dice_sandbox *sb)
{
  /* The guard avoids malloc; this copy of the buffer is its own.  */
  static char info[1 << 18];
  const char *keep[10];
  size_t nkeep = 0, len = 0;
  ssize_t n;
  int fd;
  bool all = true;

  keep[nkeep++] = sb->dir;
  for (char *const *w = sb->writable; w && *w && nkeep < 9; w++)
    if (**w == '/')
      keep[nkeep++] = *w;
  if (unshare (CLONE_NEWNS) != 0
      || mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
    return false;
  for (size_t i = 0; i < nkeep; i++)
    if (mount (keep[i], keep[i], NULL, MS_BIND | MS_REC, NULL) != 0)
      return false;
  fd = open ("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  while (len < sizeof info - 1
         && (n = read (fd, info + len, sizeof info - 1 - len)) > 0)
    len += (size_t) n;
  close (fd);
  info[len] = '\0';
  for (char *line = info; line && *line;)
    {
      char *next = strchr (line, '\n');
      char *point = line, *options;
      unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
      bool skip = false;

      if (next)
        *next++ = '\0';
      /* The fifth field is the mount point, the sixth its options.  */
      for (int field = 0; field < 4 && point; field++)
        {
          point = strchr (point, ' ');
          if (point)
            point++;
        }
      line = next;
      if (point == NULL || *point != '/' || !(options = strchr (point, ' ')))
        continue;
      *options++ = '\0';
      *strchrnul (options, ' ') = '\0';
      unescape (point);
      skip = dice_path_under (point, "/dev")
        || dice_path_under (point, "/proc") || dice_path_under (point, "/sys");
      for (size_t i = 0; i < nkeep && !skip; i++)
        skip = dice_path_under (point, keep[i]);
      /* The options, not statvfs: that would wake automounters.  Flags
         the kernel locked must be passed on as they are.  */
      for (char *opt = options; opt && *opt && !skip;)
        {
          char *comma = strchr (opt, ',');

          if (comma)
            *comma++ = '\0';
          if (strcmp (opt, "ro") == 0)
            skip = true;
          else if (strcmp (opt, "nosuid") == 0)
            flags |= MS_NOSUID;
          else if (strcmp (opt, "nodev") == 0)
            flags |= MS_NODEV;
          else if (strcmp (opt, "noexec") == 0)
            flags |= MS_NOEXEC;
          else if (strcmp (opt, "noatime") == 0)
            flags |= MS_NOATIME;
          else if (strcmp (opt, "nodiratime") == 0)
            flags |= MS_NODIRATIME;
          else if (strcmp (opt, "relatime") == 0)
            flags |= MS_RELATIME;
          opt = comma;
        }
      if (skip)
        continue;
      if (mount (NULL, point, NULL, flags, NULL) != 0)
        all = false;
    }
  /* Not a condition of ALL: a directory that cannot be covered (one
     that is gone, say) leaves the candidate able to delay other runs,
     not to change what the read-only file systems protect.  */
  for (char *const *h = sb->hidden; h && *h; h++)
    {
      /* A directory that holds one the candidate needs (a lock directory
         set to /tmp, say) stays in sight.  */
      bool needed = **h != '/';

      for (size_t i = 0; i < nkeep && !needed; i++)
        needed = dice_path_under (keep[i], *h);
      if (!needed)
        mount ("dice-hidden", *h, "tmpfs",
               MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
               "size=4k,mode=0555");
    }
  return all;
}

/* In the guard: new user, network and PID namespaces where the kernel
   allows them unprivileged; new network and PID namespaces alone where we
   are privileged; else none.  Returns false, with M->text saying why,
   only when a user namespace was entered but could not be set up.  */
static bool
enter_namespaces (const struct dice_sandbox *sb, struct guard_msg *m)
{
  uid_t uid = geteuid ();
  gid_t gid = getegid ();

  if (unshare (CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID) == 0)
    {
      char map[64];
      bool mapped;

      /* A non-dumpable process's /proc files belong to root: we may
         write our own maps only while dumpable.  */
      prctl (PR_SET_DUMPABLE, 1, 0, 0, 0);
      if (!write_file ("/proc/self/setgroups", "deny") && errno != ENOENT)
        mapped = false;
      else
        {
          snprintf (map, sizeof map, "%lu %lu 1", (unsigned long) uid,
                    (unsigned long) uid);
          mapped = write_file ("/proc/self/uid_map", map);
          snprintf (map, sizeof map, "%lu %lu 1", (unsigned long) gid,
                    (unsigned long) gid);
          mapped = mapped && write_file ("/proc/self/gid_map", map);
        }
      prctl (PR_SET_DUMPABLE, 0, 0, 0, 0);
      if (!mapped)
        {
          snprintf (m->text, sizeof m->text,
                    "cannot map ids in a new user namespace: %s",
                    strerror (errno));
          return false;
        }
    }
  else if (unshare (CLONE_NEWNET | CLONE_NEWPID) != 0)
    return true;
  m->net_isolated = m->pid_namespace = 1;
  loopback_up ();
  m->fs_readonly = readonly_filesystem (sb);
  return true;
}

static void
set_limit (int resource, unsigned long long value)
{
  struct rlimit rl = { (rlim_t) value, (rlim_t) value };

  setrlimit (resource, &rl);
}

/* The candidate, forked by the guard: never returns.  */
static void __attribute__ ((noreturn))
candidate (const struct dice_sandbox *sb, char **env, const int fds[4],
           bool pid_namespace)
{
  static const char failed[] = "dice sandbox: cannot run the harness\n";
  int high[5];
  sigset_t none;
  int keep[1] = { 0 };

  setsid ();
  prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  /* The first process of a PID namespace can have a /proc of its own,
     showing no process but its own and its children: nothing to read the
     environment or command line of (the user's shell holds API keys).
     It needs a mount namespace of its own too, since the guard still
     looks at the machine's /proc.  */
  if (pid_namespace)
    {
      struct guard_msg m;

      memset (&m, 0, sizeof m);
      m.kind = GUARD_PROC;
      m.proc_private = unshare (CLONE_NEWNS) == 0
        && mount (NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0
        && mount ("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                  NULL) == 0;
      if (write (fds[3], &m, sizeof m) < 0)
        _exit (127);
    }
  /* No capabilities after exec, even as root (of a user namespace, or of
     the machine): nothing to undo the read-only mounts with, nor to
     override file permissions or signal other users.  Unprivileged
     callers have none to drop, and the calls fail harmlessly.  */
  prctl (PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED
         | SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED, 0, 0, 0);
  prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  for (int sig = 1; sig < NSIG; sig++)
    signal (sig, SIG_DFL);
  sigemptyset (&none);
  sigprocmask (SIG_SETMASK, &none, NULL);
  set_limit (RLIMIT_CORE, 0);
  if (sb->file_size)
    set_limit (RLIMIT_FSIZE, sb->file_size);
  if (sb->memory)
    set_limit (RLIMIT_AS, sb->memory);
  /* Move the four descriptors out of the way before placing them, so no
     dup2 overwrites another.  */
  for (int i = 0; i < 4; i++)
    high[i] = fcntl (fds[i], F_DUPFD, 16);
  high[4] = sb->channel ? fcntl (*sb->channel, F_DUPFD, 16) : -1;
  if (dup2 (high[0], 0) < 0 || dup2 (high[1], 1) < 0 || dup2 (high[1], 2) < 0
      || dup2 (high[2], DICE_SANDBOX_RESULT_FD) < 0
      || (sb->channel && dup2 (high[4], DICE_SANDBOX_CHANNEL_FD) < 0))
    _exit (127);
  close_from (sb->channel ? DICE_SANDBOX_CHANNEL_FD + 1
              : DICE_SANDBOX_RESULT_FD + 1, keep, 0);
  if (chdir (sb->dir) != 0)
    _exit (127);
  execvpe (sb->argv[0], sb->argv, env);
  if (write (2, failed, sizeof failed - 1) < 0)
    _exit (127);
  _exit (127);
}

/* Kill every child of this process (orphans the subreaper inherited).
   Reads /proc with plain system calls: the guard avoids malloc.  */
static void
kill_children (void)
{
  char buf[8192];
  int dfd = open ("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  pid_t self = getpid ();
  long got;

  if (dfd < 0)
    return;
  while ((got = syscall (SYS_getdents64, dfd, buf, sizeof buf)) > 0)
    for (long off = 0; off < got;)
      {
        struct
        {
          unsigned long long ino;
          long long off;
          unsigned short reclen;
          unsigned char type;
          char name[];
        } *de = (void *) (buf + off);
        char path[64], stat[512];
        const char *close_paren;
        int fd;
        ssize_t n;
        long ppid;

        off += de->reclen;
        if (de->name[0] < '1' || de->name[0] > '9')
          continue;
        snprintf (path, sizeof path, "/proc/%s/stat", de->name);
        fd = open (path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
          continue;
        n = read (fd, stat, sizeof stat - 1);
        close (fd);
        if (n <= 0)
          continue;
        stat[n] = '\0';
        close_paren = strrchr (stat, ')');
        if (close_paren && sscanf (close_paren + 1, " %*c %ld", &ppid) == 1
            && ppid == self)
          kill ((pid_t) atol (de->name), SIGKILL);
      }
  close (dfd);
}

/* Reap every child; keep the candidate's status.  Returns true when no
   child is left.  */
static bool
reap (pid_t cand, int *wstatus, bool *cand_done)
{
  int ws;
  pid_t p;

  while ((p = waitpid (-1, &ws, WNOHANG)) > 0)
    if (p == cand)
      {
        *wstatus = ws;
        *cand_done = true;
      }
  return p < 0 && errno == ECHILD;
}

/* The guard: never returns.  FDS are the candidate's ends: stdin, output,
   result; ST the status pipe.  */
/* The guard.  AWAITING_JOB: the run was started ahead of its job
   (dice_sandbox_start), and its deadline starts at the caller's go,
   SIGUSR1, when the job is delivered, not now.  */
static void __attribute__ ((noreturn))
guard (const struct dice_sandbox *sb, char **env, int fds[4], pid_t parent,
       bool awaiting_job)
{
  struct guard_msg m;
  int keep[5];
  size_t nkeep = 4;
  int null;
  sigset_t chld;
  pid_t cand;
  int wstatus = 0;
  bool cand_done = false;
  double deadline, sweep_end;

  memcpy (keep, fds, 4 * sizeof *keep);
  if (sb->channel)
    keep[nkeep++] = *sb->channel;
  qsort (keep, nkeep, sizeof *keep, compare_ints);
  /* Other threads' sandboxes' descriptors must not stay open here.  */
  close_from (3, keep, nkeep);
  null = open ("/dev/null", O_RDWR);
  if (null >= 0)
    {
      dup2 (null, 0);
      dup2 (null, 1);
      if (null > 2)
        close (null);
    }
  memset (&m, 0, sizeof m);
  setsid ();
  /* SIGTERM, waited for like SIGCHLD, when the caller dies (even by
     SIGKILL): the guard then kills the candidate and removes its
     directory before going.  */
  sigemptyset (&chld);
  sigaddset (&chld, SIGCHLD);
  sigaddset (&chld, SIGTERM);
  sigaddset (&chld, SIGUSR1);
  sigprocmask (SIG_BLOCK, &chld, NULL);
  prctl (PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
  if (getppid () != parent)
    {
      if (!sb->keep_dir)
        dice_remove_tree (sb->dir);
      _exit (1);
    }
  prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  signal (SIGPIPE, SIG_IGN);
  if (sb->isolate && !enter_namespaces (sb, &m))
    {
      m.kind = GUARD_FAILED;
      if (write (fds[3], &m, sizeof m) < 0)
        _exit (1);
      _exit (1);
    }
  cand = fork ();
  if (cand == 0)
    candidate (sb, env, fds, m.pid_namespace);
  if (cand < 0)
    {
      m.kind = GUARD_FAILED;
      snprintf (m.text, sizeof m.text, "cannot fork: %s", strerror (errno));
      if (write (fds[3], &m, sizeof m) < 0)
        _exit (1);
      _exit (1);
    }
  m.kind = GUARD_STARTED;
  m.pid = cand;
  if (write (fds[3], &m, sizeof m) < 0)
    {
      kill (cand, SIGKILL);
      _exit (1);
    }
  close (fds[0]);
  close (fds[1]);
  close (fds[2]);
  if (sb->channel)
    close (*sb->channel);

  deadline = sb->timeout > 0 && !awaiting_job ? now_s () + sb->timeout : 0;
  while (!cand_done && !m.aborted)
    {
      struct timespec ts = { 1, 0 };
      int sig;

      reap (cand, &wstatus, &cand_done);
      if (cand_done)
        break;
      if (deadline)
        {
          double left = deadline - now_s ();

          if (left <= 0)
            {
              m.timed_out = 1;
              break;
            }
          if (left < 1)
            {
              ts.tv_sec = 0;
              ts.tv_nsec = (long) (left * 1e9) + 1;
            }
        }
      sig = sigtimedwait (&chld, NULL, &ts);
      if (sig == SIGTERM)
        m.aborted = 1;
      else if (sig == SIGUSR1 && awaiting_job)
        {
          awaiting_job = false;
          deadline = sb->timeout > 0 ? now_s () + sb->timeout : 0;
        }
    }
  /* Whatever ended the candidate, nothing it started may outlive it: its
     process group first (with a PID namespace the kernel has already
     killed the rest), then every orphan that came to us.  */
  kill (-cand, SIGKILL);
  kill (cand, SIGKILL);
  sweep_end = now_s () + SWEEP_S;
  while (!reap (cand, &wstatus, &cand_done) && now_s () < sweep_end)
    {
      struct timespec pause = { 0, 10 * 1000 * 1000 };

      kill (-cand, SIGKILL);
      kill_children ();
      sigtimedwait (&chld, NULL, &pause);
    }
  m.kind = GUARD_ENDED;
  m.wstatus = wstatus;
  if (!cand_done)
    snprintf (m.text, sizeof m.text, "the candidate could not be reaped");
  /* The caller may be gone and unable to clean up.  What the candidate
     left goes; the directory itself stays when it is a mount point
     here.  */
  if (m.aborted && !sb->keep_dir)
    dice_remove_tree (sb->dir);
  if (write (fds[3], &m, sizeof m) < 0)
    _exit (1);
  _exit (0);
}

static long long
oom_kills (void)
{
  char buf[8192];
  int fd = open ("/proc/vmstat", O_RDONLY | O_CLOEXEC);
  ssize_t n;
  const char *p;

  if (fd < 0)
    return -1;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return -1;
  buf[n] = '\0';
  p = strstr (buf, "\noom_kill ");
  return p ? atoll (p + 10) : -1;
}

/* Append LEN bytes to *BUF keeping only the last MAX (a multiple of MAX
   is held before trimming, so trimming is rare).  */
static bool
append_tail (char **buf, size_t *len, size_t max, bool *truncated,
             const char *data, size_t n)
{
  char *grown = realloc (*buf, *len + n + 1);

  if (grown == NULL)
    return false;
  *buf = grown;
  memcpy (*buf + *len, data, n);
  *len += n;
  if (*len > 2 * max)
    {
      memmove (*buf, *buf + *len - max, max);
      *len = max;
      *truncated = true;
    }
  (*buf)[*len] = '\0';
  return true;
}

static int
start_failed (struct dice_sandbox *sb, int err, const char *what)
{
  sb->end = DICE_SANDBOX_NOT_STARTED;
  snprintf (sb->error, sizeof sb->error, "%s: %s", what, strerror (err));
  return -1;
}

static void
close_fd (int *fd)
{
  if (*fd >= 0)
    close (*fd);
  *fd = -1;
}

/* The caller's side of one run, while the guard and the candidate live:
   its ends of the four channels, and what the guard has said so far.  */
struct watch
{
  int in, out, res, st;         /* job in; log, result and guard out */
  pid_t guard, cand;
  double start, backstop, drain_until;
  struct guard_msg m;
  size_t msg_got, written, log_max;
  bool ended, lost, killed_late;
};

/* The fields of SB that a run fills, emptied.  */
static void
reset_outcome (struct dice_sandbox *sb)
{
  sb->dir = sb->result = sb->log = NULL;
  sb->result_len = sb->log_len = 0;
  sb->log_truncated = sb->oom_kill = false;
  sb->net_isolated = sb->pid_namespace = sb->fs_readonly = false;
  sb->proc_private = false;
  sb->status = 0;
  sb->ms = 0;
  sb->error[0] = '\0';
}

/* SB->dir, a fresh working directory, and the candidate's environment
   for it in *ENV.  0, or -1 with SB's error set.  */
static int
make_workdir (struct dice_sandbox *sb, char ***env)
{
  const char *tmp = getenv ("TMPDIR");
  char path[PATH_MAX];

  snprintf (path, sizeof path, "%s/dice-XXXXXX",
            tmp && *tmp == '/' ? tmp : "/tmp");
  if (mkdtemp (path) == NULL)
    return start_failed (sb, errno, "cannot make a working directory");
  /* The mount table names it resolved.  */
  if ((sb->dir = realpath (path, NULL)) == NULL)
    {
      rmdir (path);
      return start_failed (sb, ENOMEM, "cannot start");
    }
  *env = dice_sandbox_environ (sb->dir, sb->extra_env);
  if (*env == NULL)
    {
      dice_remove_tree (sb->dir);
      return start_failed (sb, ENOMEM, "cannot start");
    }
  return 0;
}

/* Fork the guard with ENV, the caller's ends of the channels in W
   (AWAITING_JOB: see guard).  0, or -1 with SB's error set and the
   working directory gone.  */
static int
start_guard (struct dice_sandbox *sb, char **env, struct watch *w,
             bool awaiting_job)
{
  int in[2], out[2], res[2], st[2];
  int child_fds[4];
  pid_t self = getpid ();
  sigset_t go, mask;
  int err;

  /* stdin is a socket so that writing to a candidate that closed it
     gives EPIPE (MSG_NOSIGNAL) rather than SIGPIPE to this process.  */
  if (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0)
    {
      err = errno;
      dice_remove_tree (sb->dir);
      return start_failed (sb, err, "cannot make pipes");
    }
  if (pipe2 (out, O_CLOEXEC) != 0 || pipe2 (res, O_CLOEXEC) != 0
      || pipe2 (st, O_CLOEXEC) != 0)
    {
      /* Out of descriptors: rare enough to leak the few made.  */
      err = errno;
      dice_remove_tree (sb->dir);
      return start_failed (sb, err, "cannot make pipes");
    }
  shutdown (in[0], SHUT_WR);
  child_fds[0] = in[0];
  child_fds[1] = out[1];
  child_fds[2] = res[1];
  child_fds[3] = st[1];
  w->start = now_s ();
  /* The guard is born with the go signal blocked, so that a go sent at
     once is waited for rather than fatal.  */
  sigemptyset (&go);
  sigaddset (&go, SIGUSR1);
  pthread_sigmask (SIG_BLOCK, &go, &mask);
  w->guard = fork ();
  if (w->guard == 0)
    guard (sb, env, child_fds, self, awaiting_job);
  err = errno;
  pthread_sigmask (SIG_SETMASK, &mask, NULL);
  close (in[0]);
  close (out[1]);
  close (res[1]);
  close (st[1]);
  if (w->guard < 0)
    {
      close (in[1]);
      close (out[0]);
      close (res[0]);
      close (st[0]);
      dice_remove_tree (sb->dir);
      return start_failed (sb, err, "cannot fork");
    }
  w->in = in[1];
  w->out = out[0];
  w->res = res[0];
  w->st = st[0];
  fcntl (w->in, F_SETFL, O_NONBLOCK);
  fcntl (w->out, F_SETFL, O_NONBLOCK);
  fcntl (w->res, F_SETFL, O_NONBLOCK);
  fcntl (w->st, F_SETFL, O_NONBLOCK);
  return 0;
}

static void
kill_candidate (const struct watch *w)
{
  if (w->cand > 0)
    {
      kill (-w->cand, SIGKILL);
      kill (w->cand, SIGKILL);
    }
}

enum deadline { DEADLINE_WAIT, DEADLINE_AGAIN, DEADLINE_STOP };

/* What the watch does about time: once the guard has reported (or is
   lost), a short drain; before that, the backstop past the candidate's
   own deadline, at which the guard itself is presumed stuck.  *MS gets
   how long poll may wait (-1: forever).  */
static enum deadline
check_deadline (struct watch *w, int *ms)
{
  double now = now_s (), until = 0;

  *ms = -1;
  if (w->ended || w->lost)
    {
      if (w->drain_until == 0)
        w->drain_until = now + DRAIN_GRACE_S;
      until = w->drain_until;
    }
  else if (w->backstop)
    until = w->backstop;
  if (until == 0)
    return DEADLINE_WAIT;
  if (now < until)
    {
      *ms = (int) ((until - now) * 1000) + 1;
      return DEADLINE_WAIT;
    }
  if (!w->ended && !w->lost)
    {
      /* The guard itself is stuck or slow: end it all.  */
      kill (w->guard, SIGKILL);
      w->killed_late = true;
      w->lost = true;
    }
  kill_candidate (w);
  return w->ended || w->drain_until ? DEADLINE_STOP : DEADLINE_AGAIN;
}

/* Feed the job to the candidate as far as it takes it.  */
static void
send_input (const struct dice_sandbox *sb, struct watch *w)
{
  ssize_t n = send (w->in, sb->input + w->written, sb->input_len - w->written,
                    MSG_NOSIGNAL | MSG_DONTWAIT);

  if (n > 0)
    w->written += (size_t) n;
  else if (n < 0 && errno != EAGAIN && errno != EINTR)
    close_fd (&w->in);
}

/* Read what FD has into BUF; false (FD closed) at its end or an error.  */
static bool
read_some (int *fd, char *buf, size_t size, ssize_t *n)
{
  *n = read (*fd, buf, size);
  if (*n > 0 || (*n < 0 && (errno == EAGAIN || errno == EINTR)))
    return true;
  close_fd (fd);
  return false;
}

static void
read_log (struct dice_sandbox *sb, struct watch *w)
{
  char buf[65536];
  ssize_t n;

  if (read_some (&w->out, buf, sizeof buf, &n) && n > 0)
    append_tail (&sb->log, &sb->log_len, w->log_max, &sb->log_truncated,
                 buf, (size_t) n);
}

/* The result, kept whole up to RESULT_MAX; what is beyond is dropped.  */
static void
read_result (struct dice_sandbox *sb, struct watch *w)
{
  char buf[65536];
  ssize_t n;

  if (!read_some (&w->res, buf, sizeof buf, &n) || n <= 0
      || sb->result_len + (size_t) n > RESULT_MAX)
    return;
  char *grown = realloc (sb->result, sb->result_len + n + 1);

  if (grown == NULL)
    return;
  sb->result = grown;
  memcpy (sb->result + sb->result_len, buf, (size_t) n);
  sb->result_len += (size_t) n;
  sb->result[sb->result_len] = '\0';
}

/* What one whole message from the guard means for SB.  */
static void
note_guard_message (struct dice_sandbox *sb, struct watch *w)
{
  const struct guard_msg *m = &w->m;

  switch (m->kind)
    {
    case GUARD_STARTED:
      w->cand = m->pid;
      sb->net_isolated = m->net_isolated;
      sb->pid_namespace = m->pid_namespace;
      sb->fs_readonly = m->fs_readonly;
      break;
    case GUARD_PROC:
      sb->proc_private = m->proc_private;
      break;
    case GUARD_ENDED:
      w->ended = true;
      if (m->aborted)
        sb->end = DICE_SANDBOX_GUARD_LOST;
      else if (m->timed_out)
        sb->end = DICE_SANDBOX_TIMEOUT;
      else if (WIFSIGNALED (m->wstatus))
        {
          sb->end = DICE_SANDBOX_SIGNALED;
          sb->status = WTERMSIG (m->wstatus);
        }
      else
        sb->status = WEXITSTATUS (m->wstatus);
      sb->ms = (now_s () - w->start) * 1000;
      break;
    default:
      sb->end = DICE_SANDBOX_NOT_STARTED;
      snprintf (sb->error, sizeof sb->error, "%s", m->text);
      w->ended = true;
    }
}

/* The guard's channel: messages come whole or in pieces; its end before
   GUARD_ENDED means the guard is lost, and the candidate with it.  */
static void
read_guard (struct dice_sandbox *sb, struct watch *w)
{
  ssize_t n;

  if (read_some (&w->st, (char *) &w->m + w->msg_got,
                 sizeof w->m - w->msg_got, &n))
    {
      if (n <= 0)
        return;
      w->msg_got += (size_t) n;
      if (w->msg_got == sizeof w->m)
        {
          w->msg_got = 0;
          note_guard_message (sb, w);
        }
    }
  else if (!w->ended)
    {
      w->lost = true;
      kill_candidate (w);
    }
}

/* Until the guard's channels close or time runs out: feed the job, keep
   the log's tail and the result, and follow the guard's reports.  */
static void
watch_run (struct dice_sandbox *sb, struct watch *w)
{
  while (w->out >= 0 || w->res >= 0 || w->st >= 0)
    {
      struct pollfd pfd[4];
      int timeout_ms;
      enum deadline d;

      if (w->in >= 0 && w->written == sb->input_len)
        close_fd (&w->in);
      d = check_deadline (w, &timeout_ms);
      if (d == DEADLINE_STOP)
        break;
      if (d == DEADLINE_AGAIN)
        continue;
      pfd[0] = (struct pollfd) { w->in, POLLOUT, 0 };
      pfd[1] = (struct pollfd) { w->out, POLLIN, 0 };
      pfd[2] = (struct pollfd) { w->res, POLLIN, 0 };
      pfd[3] = (struct pollfd) { w->st, POLLIN, 0 };
      if (poll (pfd, 4, timeout_ms) < 0 && errno != EINTR)
        break;
      if (w->in >= 0 && pfd[0].revents)
        send_input (sb, w);
      if (w->out >= 0 && pfd[1].revents)
        read_log (sb, w);
      if (w->res >= 0 && pfd[2].revents)
        read_result (sb, w);
      if (w->st >= 0 && pfd[3].revents)
        read_guard (sb, w);
    }
}

/* After the watch: reap the guard, say how the run ended if the guard
   never did, tell an OOM kill apart, and keep the log's tail.  */
static void
settle (struct dice_sandbox *sb, struct watch *w, long long oom_before)
{
  close_fd (&w->in);
  close_fd (&w->out);
  close_fd (&w->res);
  close_fd (&w->st);
  while (waitpid (w->guard, NULL, 0) < 0 && errno == EINTR)
    continue;
  if (!w->ended)
    {
      sb->ms = (now_s () - w->start) * 1000;
      sb->end = w->killed_late ? DICE_SANDBOX_TIMEOUT
        : DICE_SANDBOX_GUARD_LOST;
    }
  if (sb->end == DICE_SANDBOX_SIGNALED && sb->status == SIGKILL)
    {
      long long oom_after = oom_kills ();

      sb->oom_kill = oom_before >= 0 && oom_after > oom_before;
    }
  if (sb->log == NULL)
    sb->log = calloc (1, 1);
  else if (sb->log_len > w->log_max)
    {
      memmove (sb->log, sb->log + sb->log_len - w->log_max, w->log_max);
      sb->log_len = w->log_max;
      sb->log[w->log_max] = '\0';
      sb->log_truncated = true;
    }
}

/* A run started ahead of its job: the caller's side, kept between
   dice_sandbox_start and dice_sandbox_run (or dice_sandbox_cancel).  */
struct dice_sandbox_pending
{
  struct watch w;
  long long oom_before;
};

/* Make SB's directory and fork its guard, into the new P.  0, or -1 with
   SB's error set.  */
static int
start_run (struct dice_sandbox *sb, struct dice_sandbox_pending *p,
           bool awaiting_job)
{
  char **env;
  int started;

  reset_outcome (sb);
  if (make_workdir (sb, &env) != 0)
    return -1;
  memset (p, 0, sizeof *p);
  p->w.in = p->w.out = p->w.res = p->w.st = -1;
  p->w.log_max = sb->log_max ? sb->log_max : 16384;
  p->oom_before = oom_kills ();
  started = start_guard (sb, env, &p->w, awaiting_job);
  dice_sandbox_free_env (env);
  return started;
}

int
dice_sandbox_start (struct dice_sandbox *sb)
{
  struct dice_sandbox_pending *p = malloc (sizeof *p);

  sb->pending = NULL;
  if (p == NULL)
    {
      reset_outcome (sb);
      return start_failed (sb, ENOMEM, "cannot start");
    }
  if (start_run (sb, p, true) != 0)
    {
      free (p);
      return -1;
    }
  sb->pending = p;
  return 0;
}

int
dice_sandbox_run (struct dice_sandbox *sb)
{
  struct dice_sandbox_pending now, *p = sb->pending;

  if (p == NULL)
    {
      p = &now;
      if (start_run (sb, p, false) != 0)
        return -1;
    }
  else
    {
      /* The clock starts with the job.  */
      p->w.start = now_s ();
      kill (p->w.guard, SIGUSR1);
    }
  p->w.backstop = sb->timeout > 0 ? p->w.start + sb->timeout + BACKSTOP_S
    : 0;
  sb->end = DICE_SANDBOX_EXITED;
  watch_run (sb, &p->w);
  settle (sb, &p->w, p->oom_before);
  if (!sb->keep_dir)
    dice_remove_tree (sb->dir);
  if (p != &now)
    free (p);
  sb->pending = NULL;
  return sb->end == DICE_SANDBOX_NOT_STARTED ? -1 : 0;
}

void
dice_sandbox_cancel (struct dice_sandbox *sb)
{
  struct dice_sandbox_pending *p = sb->pending;

  if (p == NULL)
    return;
  /* As when the caller dies: the guard kills everything and goes.  */
  kill (p->w.guard, SIGTERM);
  close_fd (&p->w.in);
  close_fd (&p->w.out);
  close_fd (&p->w.res);
  close_fd (&p->w.st);
  while (waitpid (p->w.guard, NULL, 0) < 0 && errno == EINTR)
    continue;
  /* Nothing of a candidate's ever reached it: never kept.  */
  dice_remove_tree (sb->dir);
  free (p);
  sb->pending = NULL;
}

void
dice_sandbox_free (struct dice_sandbox *sb)
{
  free (sb->dir);
  free (sb->result);
  free (sb->log);
  sb->dir = sb->result = sb->log = NULL;
}

/* Remove NAME in directory DIRFD, depth first.  DEPTH bounds the
   recursion (and the descriptors it holds).  */
static int
remove_at (int dirfd, const char *name, int depth)
{
  int fd;
  DIR *d;
  struct dirent *de;
  int status = 0;

  /* Any other failure may be a directory (EISDIR), one on a read-only
     parent (EROFS, in the guard's mount namespace) or a mount point:
     its contents can go all the same.  */
  if (unlinkat (dirfd, name, 0) == 0 || errno == ENOENT)
    return 0;
  if (depth > 512)
    {
      errno = ELOOP;
      return -1;
    }
  fchmodat (dirfd, name, S_IRWXU, 0);
  fd = openat (dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return -1;
  d = fdopendir (fd);
  if (d == NULL)
    {
      close (fd);
      return -1;
    }
  while ((de = readdir (d)) != NULL)
    if (strcmp (de->d_name, ".") && strcmp (de->d_name, "..")
        && remove_at (fd, de->d_name, depth + 1) != 0)
      status = -1;
  closedir (d);
  if (unlinkat (dirfd, name, AT_REMOVEDIR) != 0)
    status = -1;
  return status;
}

int
dice_remove_tree (const char *dir)
{
  return remove_at (AT_FDCWD, dir, 0);
}
