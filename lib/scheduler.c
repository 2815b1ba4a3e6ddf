/* scheduler.c: workers and a reorder buffer for a record filter; see
   scheduler.h.  */
#include "system.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "jsonl.h"
#include "msg.h"
#include "options.h"
#include "progname.h"
#include "progress.h"
#include "record.h"
#include "scheduler.h"

struct label_count
{
  char label[32];
  unsigned long n;
};

struct state
{
  const struct dice_sched *s;
  pthread_mutex_t lock;
  pthread_cond_t queued, space;
  /* Records read and not yet taken by a worker: a FIFO of nworkers.  */
  json_t **queue;
  unsigned long long *queue_seq;
  size_t qhead, qlen;
  /* Finished records waiting for their turn, indexed by seq % window.  */
  json_t **done;
  size_t window;
  unsigned long long next_seq, next_write;
  bool eof, stop;
  int status;
  size_t running, waiting;
  unsigned long finished, resumed;
  struct label_count counts[16];
  size_t ncounts;
  struct dice_progress progress;
};

/* The counts per label, "ok 3, fail 1", for the progress line.  */
static void
show_progress (struct state *st, bool last)
{
  char detail[512];
  size_t len = 0;

  detail[0] = '\0';
  if (st->running > st->waiting && !last)
    len = (size_t) snprintf (detail, sizeof detail, "%zu running",
                             st->running - st->waiting);
  if (st->waiting && !last)
    len += (size_t) snprintf (detail + len, sizeof detail - len,
                              "%s%zu waiting for a GPU", len ? ", " : "",
                              st->waiting);
  for (size_t i = 0; i < st->ncounts && len < sizeof detail; i++)
    len += (size_t) snprintf (detail + len, sizeof detail - len, "%s%s %lu",
                              len ? ", " : "", st->counts[i].label,
                              st->counts[i].n);
  if (last)
    dice_progress_finish (&st->progress, detail);
  else
    dice_progress_update (&st->progress, st->finished + st->resumed, 0,
                          st->resumed, detail);
}

static void
count (struct state *st, const char *label)
{
  size_t i;

  if (label == NULL)
    label = "?";
  for (i = 0; i < st->ncounts; i++)
    if (strcmp (st->counts[i].label, label) == 0)
      break;
  if (i == st->ncounts)
    {
      if (st->ncounts == DICE_ARRAY_SIZE (st->counts))
        return;
      snprintf (st->counts[i].label, sizeof st->counts[i].label, "%s", label);
      st->ncounts++;
    }
  st->counts[i].n++;
}

/* Write REC (and free it); the lock is held.  A failed write stops the
   run.  */
static void
emit (struct state *st, json_t *rec)
{
  struct dice_resume *resume = st->s->resume;

  if (!st->stop
      && (resume ? dice_resume_write (resume, rec) != 0
          : dice_jsonl_write (stdout, rec) != 0
          || (dice_opts.unbuffered && fflush (stdout) != 0)))
    {
      if (resume)
        dice_error_errno (errno, "cannot write to '%s'", resume->path);
      else
        dice_error_errno (errno, "write error");
      st->status = DICE_EXIT_TROUBLE;
      st->stop = true;
      pthread_cond_broadcast (&st->space);
      pthread_cond_broadcast (&st->queued);
    }
  json_decref (rec);
}

/* The run of the worker thread calling, for dice_sched_waiting, which
   the work calls without a context of the scheduler's.  */
static __thread struct state *this_run;

void
dice_sched_waiting (bool waiting)
{
  struct state *st = this_run;

  if (st == NULL)
    return;
  pthread_mutex_lock (&st->lock);
  if (waiting)
    st->waiting++;
  else if (st->waiting)
    st->waiting--;
  show_progress (st, false);
  pthread_mutex_unlock (&st->lock);
}

size_t
dice_sched_records_to_come (void)
{
  struct state *st = this_run;
  size_t n;

  if (st == NULL)
    return 0;
  pthread_mutex_lock (&st->lock);
  n = st->eof || st->stop ? (st->stop ? 0 : st->qlen) : SIZE_MAX;
  pthread_mutex_unlock (&st->lock);
  return n;
}

/* How long a worker waits for a record before it takes the input to
   be slow: long beside reading a file, short beside what a pipeline's
   stage upstream takes for a record (a build, a check).  */
#define IDLE_SECONDS 1

/* Wait, the lock held, up to IDLE_SECONDS for a record, the input's end
   or a stop; true when none of them came.  */
static bool
idle_for_a_while (struct state *st)
{
  struct timespec until;

  if (clock_gettime (CLOCK_REALTIME, &until) != 0)
    return false;
  until.tv_sec += IDLE_SECONDS;
  while (st->qlen == 0 && !st->eof && !st->stop)
    if (pthread_cond_timedwait (&st->queued, &st->lock, &until) == ETIMEDOUT)
      return st->qlen == 0 && !st->eof && !st->stop;
  return false;
}

static void *
worker (void *arg)
{
  void **args = arg;
  struct state *st = args[0];
  const char *slot = args[1];
  const struct dice_sched *s = st->s;

  this_run = st;
  pthread_mutex_lock (&st->lock);
  for (;;)
    {
      json_t *rec, *value;
      unsigned long long seq;

      if (s->worker_idle && idle_for_a_while (st))
        {
          pthread_mutex_unlock (&st->lock);
          s->worker_idle (slot, s->ctx);
          pthread_mutex_lock (&st->lock);
        }
      while (st->qlen == 0 && !st->eof && !st->stop)
        pthread_cond_wait (&st->queued, &st->lock);
      if (st->qlen == 0 || st->stop)
        break;
      rec = st->queue[st->qhead];
      seq = st->queue_seq[st->qhead];
      st->qhead = (st->qhead + 1) % s->nworkers;
      st->qlen--;
      st->running++;
      pthread_cond_broadcast (&st->space);
      pthread_mutex_unlock (&st->lock);

      value = s->work (rec, slot, s->ctx);

      pthread_mutex_lock (&st->lock);
      st->running--;
      if (value == NULL || dice_record_set (rec, s->key, value) != 0)
        {
          if (!st->stop)
            dice_error ("memory exhausted");
          st->status = DICE_EXIT_TROUBLE;
          st->stop = true;
          pthread_cond_broadcast (&st->space);
          pthread_cond_broadcast (&st->queued);
          json_decref (rec);
          break;
        }
      st->finished++;
      count (st, s->label ? s->label (value, s->ctx) : NULL);
      show_progress (st, false);
      if (s->unordered)
        emit (st, rec);
      else
        {
          st->done[seq % st->window] = rec;
          while (st->next_write < st->next_seq
                 && st->done[st->next_write % st->window])
            {
              json_t *next = st->done[st->next_write % st->window];

              st->done[st->next_write % st->window] = NULL;
              st->next_write++;
              emit (st, next);
            }
        }
      pthread_cond_broadcast (&st->space);
    }
  pthread_mutex_unlock (&st->lock);
  if (s->worker_done)
    s->worker_done (slot, s->ctx);
  return NULL;
}

/* Hand REC to the workers, waiting for room.  Returns false when the run
   has stopped (REC is then freed).  */
static bool
enqueue (struct state *st, json_t *rec)
{
  const struct dice_sched *s = st->s;

  pthread_mutex_lock (&st->lock);
  while (!st->stop && (st->qlen == s->nworkers
                       || st->next_seq - st->next_write >= st->window))
    pthread_cond_wait (&st->space, &st->lock);
  if (st->stop)
    {
      pthread_mutex_unlock (&st->lock);
      json_decref (rec);
      return false;
    }
  st->queue[(st->qhead + st->qlen) % s->nworkers] = rec;
  st->queue_seq[(st->qhead + st->qlen) % s->nworkers] = st->next_seq++;
  st->qlen++;
  /* Unordered runs never wait for an earlier record.  */
  if (s->unordered)
    st->next_write = st->next_seq;
  pthread_cond_signal (&st->queued);
  pthread_mutex_unlock (&st->lock);
  return true;
}

static void
set_status (struct state *st, int status)
{
  pthread_mutex_lock (&st->lock);
  if (status > st->status)
    st->status = status;
  if (status == DICE_EXIT_TROUBLE)
    {
      st->stop = true;
      pthread_cond_broadcast (&st->queued);
      pthread_cond_broadcast (&st->space);
    }
  pthread_mutex_unlock (&st->lock);
}

/* Report the bad line just read from IN; false when the run must stop
   reading (--strict).  */
static bool
bad_input (struct state *st, const struct dice_jsonl_reader *in,
           const char *err)
{
  dice_error_at (in->name, in->line, "%s", err);
  if (dice_opts.strict)
    {
      /* Stop reading, but finish and write what was read.  */
      pthread_mutex_lock (&st->lock);
      st->status = DICE_EXIT_TROUBLE;
      pthread_mutex_unlock (&st->lock);
      return false;
    }
  set_status (st, DICE_EXIT_INPUT);
  return true;
}

/* Read one input; returns false when the run must stop reading.  */
static bool
read_input (struct state *st, const char *path)
{
  struct dice_jsonl_reader in;
  json_t *rec;
  char err[256];
  int got;
  bool go_on = true;

  if (dice_jsonl_open (&in, path) != 0)
    {
      dice_error_errno (errno, "cannot open '%s'", path);
      set_status (st, DICE_EXIT_TROUBLE);
      return false;
    }
  while (go_on && (got = dice_jsonl_next (&in, &rec, err, sizeof err)) != 0)
    {
      if (got == -2)
        {
          dice_error_errno (errno, "read error on '%s'", path);
          set_status (st, DICE_EXIT_TROUBLE);
          go_on = false;
        }
      else if (got == -1)
        go_on = bad_input (st, &in, err);
      else if (!dice_shard_keeps (&dice_opts.shard, rec))
        json_decref (rec);
      else if (st->s->resume && dice_record_id (rec) == NULL)
        {
          dice_error_at (in.name, in.line,
                         "no id, which --resume needs; skipped");
          json_decref (rec);
          set_status (st, DICE_EXIT_INPUT);
        }
      else if (st->s->resume
               && dice_resume_done (st->s->resume, rec,
                                    dice_record_sample_index (rec)))
        {
          json_decref (rec);
          pthread_mutex_lock (&st->lock);
          st->resumed++;
          pthread_mutex_unlock (&st->lock);
        }
      else if (st->s->judgeable
               && !st->s->judgeable (rec, st->s->ctx, err, sizeof err))
        {
          json_decref (rec);
          go_on = bad_input (st, &in, err);
        }
      else
        go_on = enqueue (st, rec);
    }
  dice_jsonl_close (&in);
  return go_on;
}

int
dice_sched_run (const struct dice_sched *s, char **files, int nfiles)
{
  struct state st;
  pthread_t *threads;
  void **args;
  size_t started = 0;

  memset (&st, 0, sizeof st);
  st.s = s;
  st.window = s->nworkers * 8 > 64 ? s->nworkers * 8 : 64;
  st.queue = calloc (s->nworkers, sizeof *st.queue);
  st.queue_seq = calloc (s->nworkers, sizeof *st.queue_seq);
  st.done = calloc (st.window, sizeof *st.done);
  threads = calloc (s->nworkers, sizeof *threads);
  args = calloc (2 * s->nworkers, sizeof *args);
  if (!st.queue || !st.queue_seq || !st.done || !threads || !args)
    {
      dice_error ("memory exhausted");
      return DICE_EXIT_TROUBLE;
    }
  dice_progress_start (&st.progress, s->progress,
                       s->progress == DICE_PROGRESS_NEVER ? -1
                       : dice_progress_count_lines (files, nfiles));
  pthread_mutex_init (&st.lock, NULL);
  pthread_cond_init (&st.queued, NULL);
  pthread_cond_init (&st.space, NULL);
  for (size_t i = 0; i < s->nworkers; i++)
    {
      args[2 * i] = &st;
      args[2 * i + 1] = s->slots ? s->slots[i] : NULL;
      if (pthread_create (&threads[i], NULL, worker, &args[2 * i]) != 0)
        break;
      started++;
    }
  if (started == 0)
    {
      dice_error ("cannot start worker threads");
      return DICE_EXIT_TROUBLE;
    }
  if (nfiles == 0)
    read_input (&st, "-");
  for (int i = 0; i < nfiles; i++)
    if (!read_input (&st, files[i]))
      break;
  pthread_mutex_lock (&st.lock);
  st.eof = true;
  pthread_cond_broadcast (&st.queued);
  pthread_mutex_unlock (&st.lock);
  for (size_t i = 0; i < started; i++)
    pthread_join (threads[i], NULL);
  show_progress (&st, true);
  /* After a stop, records may be left unwritten.  */
  for (size_t i = 0; i < st.window; i++)
    json_decref (st.done[i]);
  for (size_t i = 0; i < st.qlen; i++)
    json_decref (st.queue[(st.qhead + i) % s->nworkers]);
  pthread_mutex_destroy (&st.lock);
  pthread_cond_destroy (&st.queued);
  pthread_cond_destroy (&st.space);
  free (st.queue);
  free (st.queue_seq);
  free (st.done);
  free (threads);
  free (args);
  return st.status;
}
