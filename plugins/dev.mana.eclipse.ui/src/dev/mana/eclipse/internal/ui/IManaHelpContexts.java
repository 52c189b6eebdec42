package dev.mana.eclipse.internal.ui;

/** Help context ids (contexts.xml). */
public interface IManaHelpContexts {
    String PREFIX = ManaUIPlugin.PLUGIN_ID + ".";
    String LAUNCH_DIALOG = PREFIX + "launch_dialog";
    String MAIN_TAB = PREFIX + "main_tab";
    String MPI_TAB = PREFIX + "mpi_tab";
    String CHECKPOINT_TAB = PREFIX + "checkpoint_tab";
    String ENVIRONMENT_TAB = PREFIX + "environment_tab";
    String JOB_VIEW = PREFIX + "job_view";
    String RESTART_DIALOG = PREFIX + "restart_dialog";
    String PREFERENCE_PAGE = PREFIX + "preference_page";
    String IMAGE_EDITOR = PREFIX + "image_editor";
    String DIRECTORY_VIEW = PREFIX + "directory_view";
}
