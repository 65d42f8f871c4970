// courier-watch GRACE COMMAND [ARGUMENT...]
//
// The tests' watcher for the tools they run (mitmproxy, schemathesis, the web frameworks' Python,
// pip): it runs COMMAND as its child and exits as the child does, with its status or by its
// signal, so that the child cannot outlive the test that started it.
//
// - The child starts with an empty signal mask and every handler at its default, whatever its
//   parent blocked or ignored (a child inherits both through fork and exec).
// - On Linux the kernel kills the child when the watcher dies, however it dies
//   (PR_SET_PDEATHSIG); elsewhere the tests kill the watcher's process group at a time limit.
// - When the watcher's standard input ends (the test runner closed it, or died), the child gets
//   SIGTERM, then SIGKILL after GRACE seconds.
// - The child's standard input is /dev/null.
//
// It is C, not Swift, because what a child must do between fork and exec (prctl, which is
// variadic and so not callable from Swift, and nothing that allocates) is C's to do.
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

static pid_t child;
static unsigned grace;

// Reads standard input to its end, then stops the child: SIGTERM, and SIGKILL after the grace
// period (a grace period, not synchronisation).
static void *watch_input(void *unused) {
    (void)unused;
    char buffer[4096];
    for (;;) {
        ssize_t count = read(STDIN_FILENO, buffer, sizeof buffer);
        if (count > 0) continue;
        if (count < 0 && errno == EINTR) continue;
        break;
    }
    kill(child, SIGTERM);
    sleep(grace);
    kill(child, SIGKILL);
    return NULL;
}

int main(int argc, char **argv) {
    char *end = NULL;
    long seconds = argc > 2 ? strtol(argv[1], &end, 10) : -1;
    if (argc < 3 || end == NULL || *end != '\0' || seconds < 0 || seconds > 3600) {
        fprintf(stderr, "usage: courier-watch GRACE-SECONDS COMMAND [ARGUMENT...]\n");
        return 64;
    }
    grace = (unsigned)seconds;
    pid_t watcher = getpid();
    child = fork();
    if (child < 0) {
        fprintf(stderr, "courier-watch: cannot start %s: %s\n", argv[2], strerror(errno));
        return 71;
    }
    if (child == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int number = 1; number < NSIG; number++) signal(number, SIG_DFL);  // errors: SIGKILL, SIGSTOP, real-time
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != watcher) _exit(70);  // the watcher died before the request took effect
#else
        (void)watcher;
#endif
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0 && null != STDIN_FILENO) {
            dup2(null, STDIN_FILENO);
            close(null);
        }
        execvp(argv[2], argv + 2);
        fprintf(stderr, "courier-watch: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    pthread_t thread;
    if (pthread_create(&thread, NULL, watch_input, NULL) != 0) {
        fprintf(stderr, "courier-watch: cannot watch standard input\n");
        kill(child, SIGKILL);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "courier-watch: lost %s: %s\n", argv[2], strerror(errno));
            return 71;
        }
    }
    if (WIFSIGNALED(status)) {
        int number = WTERMSIG(status);
        signal(number, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, number);
        pthread_sigmask(SIG_UNBLOCK, &only, NULL);
        raise(number);
        return 128 + number;  // a signal whose default is not to end the process
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 71;
}
