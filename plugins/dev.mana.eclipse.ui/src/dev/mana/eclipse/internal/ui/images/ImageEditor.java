package dev.mana.eclipse.internal.ui.images;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.eclipse.core.runtime.IProgressMonitor;
import org.eclipse.osgi.util.NLS;
import org.eclipse.swt.SWT;
import org.eclipse.swt.layout.FillLayout;
import org.eclipse.swt.layout.GridData;
import org.eclipse.swt.layout.GridLayout;
import org.eclipse.swt.widgets.Composite;
import org.eclipse.ui.IEditorInput;
import org.eclipse.ui.IEditorSite;
import org.eclipse.ui.PartInitException;
import org.eclipse.ui.part.MultiPageEditorPart;

import dev.mana.inspector.CheckpointImage;
import dev.mana.inspector.ErrorKind;
import dev.mana.inspector.ImageException;
import dev.mana.inspector.Images;
import dev.mana.inspector.ManaImage;
import dev.mana.inspector.Problem;
import dev.mana.inspector.Salvaged;

/**
 * The checkpoint image editor (read-only): Overview, Memory Map, Threads, Files, Signals, MPI, Hex and Verify
 * pages over the image-inspector library, for our images ({@code *.mana}) and DMTCP v4.0 ones
 * ({@code ckpt_*.dmtcp}, gzip'd or not). Opening reads the headers only ({@link Images#salvage}, which also
 * opens a damaged image); each page reads its part when first shown. What is wrong with the image is shown
 * in a banner above the pages, in the inspector's words and error kinds. Nothing is ever written to the
 * image: the editor is never dirty and has no save.
 */
public final class ImageEditor extends MultiPageEditorPart {
    public static final String ID = "dev.mana.eclipse.ui.imageEditor";

    private Path path;
    private CheckpointImage image;
    private final List<Problem> openProblems = new ArrayList<>();
    /** Why an incremental image's chain could not be opened (a parent gone or replaced), or null. */
    private Problem chainProblem;
    private Banner banner;
    private final List<ImagePage> pages = new ArrayList<>();
    private OverviewPage overview;
    private MemoryMapPage memoryMap;
    private HexPage hex;
    private VerifyPage verify;
    private ThreadsPage threads;
    private FilesPage files;
    private SignalsPage signals;
    private MpiPage mpi;
    /**
     * False while a gzip'd DMTCP image is being read through once in the background (its regions, which its
     * summary needs, are only known at the end of the stream): pages wait, the UI does not.
     */
    private volatile boolean ready = true;
    /** When the first page was painted (System.nanoTime), 0 until then. */
    private volatile long firstPaintNanos;

    @Override
    public void init(IEditorSite site, IEditorInput input) throws PartInitException {
        super.init(site, input);
        path = ImageInputs.pathOf(input);
        if (path == null) {
            throw new PartInitException(NLS.bind(Messages.ImageEditor_localFilesOnly, input.getName()));
        }
        setPartName(path.getFileName().toString());
        setTitleToolTip(path.toString());
        Salvaged s = Images.salvage(path);
        image = s.image();
        openProblems.addAll(s.problems());
        image = withChain(image);
    }

    /**
     * An incremental image is shown with its chain, so that the Hex page reads the pages it leaves to its parents from
     * them, as a restart would; when a parent is gone or replaced, the image alone is shown (those pages as zeros)
     * and the banner says why. A damaged image is shown alone: its chain is the least of its troubles.
     */
    private CheckpointImage withChain(CheckpointImage img) {
        if (!openProblems.isEmpty() || !(img instanceof ManaImage m)) {
            return img;
        }
        try {
            if (m.parent().isEmpty()) {
                return img;
            }
            CheckpointImage chain = Images.openChain(path);
            img.close();
            return chain;
        } catch (ImageException e) {
            chainProblem = new Problem(e.kind(), NLS.bind(Messages.ImageEditor_chainBroken, e.getMessage()));
            return img;
        }
    }

    /** Why the image's chain could not be opened, or null (a full image, or a chain that opened). */
    Problem chainProblem() {
        return chainProblem;
    }

    @Override
    protected Composite createPageContainer(Composite parent) {
        Composite c = new Composite(parent, SWT.NONE);
        GridLayout gl = new GridLayout(1, false);
        gl.marginWidth = 0;
        gl.marginHeight = 0;
        gl.verticalSpacing = 0;
        c.setLayout(gl);
        banner = new Banner(c);
        Composite pagesArea = new Composite(c, SWT.NONE);
        pagesArea.setLayoutData(new GridData(SWT.FILL, SWT.FILL, true, true));
        pagesArea.setLayout(new FillLayout());
        org.eclipse.ui.PlatformUI.getWorkbench().getHelpSystem().setHelp(c,
            dev.mana.eclipse.internal.ui.IManaHelpContexts.IMAGE_EDITOR);
        for (Problem p : openProblems) {
            banner.add(line(p.kind(), p.message()));
        }
        if (chainProblem != null) {
            banner.add(line(chainProblem.kind(), chainProblem.message()));
        }
        return super.createPageContainer(pagesArea);
    }

    @Override
    protected void createPages() {
        overview = add(new OverviewPage(this));
        memoryMap = add(new MemoryMapPage(this));
        threads = add(new ThreadsPage(this));
        files = add(new FilesPage(this));
        signals = add(new SignalsPage(this));
        mpi = add(new MpiPage(this));
        hex = add(new HexPage(this));
        verify = add(new VerifyPage(this));
        if (image instanceof dev.mana.inspector.DmtcpImage d && d.compressed()) {
            readInBackground(d);
        }
        overview.ensureLoaded();
        // the time to the first painted page (the timing test; paints come later, from the event loop)
        overview.root.addListener(SWT.Paint, e -> markPainted());
        overview.viewer().getTable().addListener(SWT.Paint, e -> markPainted());
        setActivePage(0);
    }

    /** Decompresses a gzip'd DMTCP image once (a Job) before any page reads it; then shows the active page. */
    private void readInBackground(dev.mana.inspector.DmtcpImage d) {
        ready = false;
        var display = getContainer().getDisplay();
        org.eclipse.core.runtime.jobs.Job job = new org.eclipse.core.runtime.jobs.Job(NLS.bind(Messages.ImageEditor_readJob, path.getFileName())) {
            @Override
            protected org.eclipse.core.runtime.IStatus run(IProgressMonitor monitor) {
                ImageException failure = null;
                try {
                    d.regions();
                } catch (ImageException e) {
                    failure = e; // the pages that need the regions report it
                }
                ImageException f = failure;
                display.asyncExec(() -> {
                    ready = true;
                    if (getContainer() == null || getContainer().isDisposed()) {
                        return;
                    }
                    if (f != null) {
                        report(Messages.ImageEditor_image, f);
                    }
                    int active = getActivePage();
                    overview.ensureLoaded();
                    if (active >= 0 && active < pages.size()) {
                        pages.get(active).ensureLoaded();
                    }
                });
                return org.eclipse.core.runtime.Status.OK_STATUS;
            }
        };
        job.setSystem(false);
        job.schedule();
    }

    /** Whether the pages may read the image (false while a gzip'd image is first read in the background). */
    boolean ready() {
        return ready;
    }

    /** Whether every page can read the image now (tests wait for it with gzip'd DMTCP images). */
    public boolean isReady() {
        return ready;
    }

    private void markPainted() {
        if (firstPaintNanos == 0) {
            firstPaintNanos = System.nanoTime();
        }
    }

    private <P extends ImagePage> P add(P page) {
        int i = addPage(page.create(getContainer()));
        setPageText(i, page.title());
        pages.add(page);
        return page;
    }

    @Override
    protected void pageChange(int newPageIndex) {
        super.pageChange(newPageIndex);
        if (newPageIndex >= 0 && newPageIndex < pages.size()) {
            pages.get(newPageIndex).ensureLoaded();
        }
    }

    /** A part of the image could not be read: say so in the banner. */
    void report(String page, ImageException e) {
        reportLine(line(e.kind(), NLS.bind(Messages.ImageEditor_pageProblem, page, e.getMessage())));
    }

    void reportLine(String line) {
        if (banner != null) {
            banner.add(line);
        }
    }

    private static String line(ErrorKind kind, String message) {
        String label = kind.label().substring(0, 1).toUpperCase() + kind.label().substring(1);
        String m = message.startsWith(kind.label() + ": ") ? message.substring(kind.label().length() + 2) : message;
        return NLS.bind(Messages.ImageEditor_problem, new Object[] {label, kind.name(), m});
    }

    /** The first problem of {@code kind} found when the image was opened, or null. */
    Problem openProblem(ErrorKind kind) {
        return openProblems.stream().filter(p -> p.kind() == kind).findFirst().orElse(null);
    }

    /** Shows the Hex page at {@code address}. */
    public void showHex(long address) {
        setActivePage(pages.indexOf(hex));
        hex.ensureLoaded();
        hex.show(address);
    }

    public void showPage(String title) {
        for (int i = 0; i < pages.size(); i++) {
            if (pages.get(i).title().equals(title)) {
                setActivePage(i);
                pages.get(i).ensureLoaded();
                return;
            }
        }
        throw new IllegalArgumentException("no page " + title);
    }

    CheckpointImage image() {
        return image;
    }

    public Path path() {
        return path;
    }

    // ---- read-only: never dirty, never saved

    @Override
    public boolean isDirty() {
        return false;
    }

    @Override
    public void doSave(IProgressMonitor monitor) {
        // an image is never written
    }

    @Override
    public void doSaveAs() {
        // an image is never written
    }

    @Override
    public boolean isSaveAsAllowed() {
        return false;
    }

    @Override
    public void setFocus() {
        super.setFocus();
    }

    @Override
    public void dispose() {
        if (verify != null) {
            verify.cancel();
        }
        if (image != null) {
            image.close();
        }
        super.dispose();
    }

    // ---- for the tests (dev.mana.eclipse.ui.tests) and the screenshots

    public boolean isBannerShown() {
        return banner.isShown();
    }

    public String getBannerText() {
        return banner.getText();
    }

    public long getFirstPaintNanos() {
        return firstPaintNanos;
    }

    public java.util.Map<String, String> getOverview() {
        return overview.values();
    }

    public List<String> getPageTitles() {
        return pages.stream().map(ImagePage::title).toList();
    }

    public String getPageMessage(String title) {
        for (ImagePage p : pages) {
            if (p.title().equals(title)) {
                p.ensureLoaded();
                return p.getMessage();
            }
        }
        return null;
    }

    public List<dev.mana.inspector.MemoryRegion> getRegions() {
        memoryMap.ensureLoaded();
        return memoryMap.regions();
    }

    /** Selects a region on the Memory Map page (as a click in the table or the strip does). */
    public void selectRegion(dev.mana.inspector.MemoryRegion r) {
        showPage(memoryMap.title());
        memoryMap.select(r);
    }

    /** Show Hex of the Memory Map's selected region (the button). */
    public void showSelectedRegionInHex() {
        memoryMap.showSelectedInHex();
    }

    public void setMemoryFilter(String text, boolean savedOnly) {
        memoryMap.ensureLoaded();
        memoryMap.setFilter(text, savedOnly);
    }

    public int getMemoryMapVisibleRows() {
        return memoryMap.visibleRows();
    }

    public int getMemoryStripBreaks() {
        return memoryMap.strip().breakCount();
    }

    public String getHexText() {
        return hex.getText();
    }

    public String getHexLocation() {
        return hex.getWhere();
    }

    public int getTableRows(String title) {
        showPage(title);
        if (title.equals(threads.title())) {
            return threads.rows();
        }
        if (title.equals(files.title())) {
            return files.rows();
        }
        if (title.equals(signals.title())) {
            return signals.rows();
        }
        throw new IllegalArgumentException(title);

    }

    public String getMpiText() {
        showPage(mpi.title());
        return mpi.getText();
    }

    public void startVerify() {
        showPage(verify.title());
        verify.start();
    }

    public void cancelVerify() {
        verify.cancel();
    }

    /** Told each verify progress report (bytes read so far), on the verify Job's thread. */
    public void setVerifyProgressListener(java.util.function.LongConsumer l) {
        verify.setProgressListener(l);
    }

    public boolean isVerifying() {
        return verify.running();
    }

    /** "OK", "CORRUPT (1 problem)", "canceled", ... once a verify ended; null before. */
    public String getVerifyVerdict() {
        return verify.result() == null ? null : verify.result().verdict();
    }

    public String getVerifyRegionResult(dev.mana.inspector.MemoryRegion r) {
        return verify.result() == null ? null : verify.result().regionResult(r);
    }

    public long getVerifyProgressEvents() {
        return verify.progressEvents();
    }

    public String getVerifyStatus() {
        return verify.status();
    }
}
